import { t } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { BindsTable } from '../../shared/smppBinds.js';
import { AsyncState, NoticeLine, Page, Secret, SelectField, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { system } from '../session.js';

/** The account's SMPP binds and SMPP passwords of its traffic keys (docs/smpp-server.md). */
export function SmppBinds() {
  const notice = useNotice();
  const action = useAction(notice);
  const binds = useAsync((signal) => system.get('/api/v1/smpp-binds', { signal }), []);
  const keys = useAsync((signal) => system.get('/api/v1/api-keys', { signal }), []);
  const traffic = (keys.data?.items ?? []).filter((k) => k.type === 'traffic' && !k.revokedAt);
  const [keyId, setKeyId] = useState('');
  const [issued, setIssued] = useState<{ keyId: string; password: string } | undefined>(undefined);
  const chosen = keyId || traffic[0]?.id || '';

  const issue = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const made = await system.post('/api/v1/smpp-passwords', { body: { keyId: chosen } });
      setIssued(made);
      return t('smpp.issued');
    });
  };

  return (
    <Page
      title={t('app.nav.smpp')}
      actions={
        <button type="button" class="secondary" onClick={binds.reload}>
          {t('ui.refresh')}
        </button>
      }
    >
      <NoticeLine notice={notice.notice} />
      <form class="card" onSubmit={issue} aria-labelledby="smpp-password">
        <h2 id="smpp-password">{t('smpp.password')}</h2>
        <p class="hint">{t('smpp.hint')}</p>
        <div class="grid">
          <SelectField
            label={t('smpp.key')}
            value={chosen}
            onValue={setKeyId}
            options={traffic.map((k) => ({ value: k.id, label: k.id }))}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy || chosen === ''}>
            {t('smpp.issue')}
          </button>
        </div>
        {issued && <Secret label={t('smpp.passwordOf', { id: issued.keyId })} value={issued.password} />}
      </form>
      <AsyncState state={binds} what={t('admin.nav.smppBinds')} />
      {binds.data && <BindsTable binds={binds.data.items} />}
    </Page>
  );
}
