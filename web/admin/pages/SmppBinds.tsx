import { t } from '../../shared/i18n/index.js';
import { BindsTable } from '../../shared/smppBinds.js';
import { AsyncState, Page, useAsync } from '../../shared/ui.js';
import { AccountLink } from '../accountNames.js';
import { admin } from '../session.js';

/** Every client bind of Herald's SMPP servers (docs/smpp-server.md). */
export function SmppBinds() {
  const list = useAsync((signal) => admin.get('/admin/v1/smpp-binds', { signal }), []);
  return (
    <Page
      title={t('admin.nav.smppBinds')}
      actions={
        <button type="button" class="secondary" onClick={list.reload}>
          {t('ui.refresh')}
        </button>
      }
    >
      <p class="hint">{t('smpp.adminHint')}</p>
      <AsyncState state={list} what={t('admin.nav.smppBinds')} />
      {list.data && <BindsTable binds={list.data.items} account={(id) => <AccountLink id={id} />} />}
    </Page>
  );
}
