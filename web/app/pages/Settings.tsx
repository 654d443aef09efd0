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
      return 'Settings saved.';
    });
  return (
    <Page title="Settings">
      <NoticeLine notice={notice.notice} />
      <AsyncState state={settings} what="settings" />
      {settings.data && (
        <GuardSettingsView settings={settings.data} editing="client" busy={action.busy} onSave={(c) => void save(c)} />
      )}
      <h2>Audit</h2>
      <AsyncState state={audit} what="the audit" />
      {audit.data && <SettingsAudit items={audit.data.items} />}
    </Page>
  );
}
