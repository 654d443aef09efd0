import { t } from '../../shared/i18n/index.js';
import { GuardSettingsView, SettingsAudit } from '../../shared/guard.js';
import { AsyncState, NoticeLine, Page, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { system } from '../session.js';

/** The account's fraud guard and consent settings: the operator's, its own narrowing, the effective ones, the audit. */
export function Settings() {
  const notice = useNotice();
  const action = useAction(notice);
  const settings = useAsync((signal) => system.get('/api/v1/settings', { signal }), []);
  const audit = useAsync((signal) => system.get('/api/v1/settings/audit', { signal }), []);
  const save = (changes: Record<string, unknown>) =>
    action.run(async () => {
      await system.patch('/api/v1/settings', { body: changes as never });
      settings.reload();
      audit.reload();
      return t('account.settingsSaved');
    });
  return (
    <Page title={t('app.nav.settings')}>
      <NoticeLine notice={notice.notice} />
      <AsyncState state={settings} what={t('settings.theSettings')} />
      {settings.data && (
        <GuardSettingsView settings={settings.data} editing="client" busy={action.busy} onSave={(c) => void save(c)} />
      )}
      <h2>{t('account.audit')}</h2>
      <AsyncState state={audit} what={t('account.theAudit')} />
      {audit.data && <SettingsAudit items={audit.data.items} />}
    </Page>
  );
}
