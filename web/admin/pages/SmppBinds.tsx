import { BindsTable } from '../../shared/smppBinds.js';
import { AsyncState, Page, useAsync } from '../../shared/ui.js';
import { admin } from '../session.js';

/** Every client bind of Herald's SMPP servers (docs/smpp-server.md). */
export function SmppBinds() {
  const list = useAsync((signal) => admin.get('/admin/v1/smpp-binds', { signal }), []);
  return (
    <Page
      title="SMPP binds"
      actions={
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh
        </button>
      }
    >
      <p class="hint">
        Clients bound to Herald's SMPP server (HERALD_SMPP_PORT), on every api process; window use as of the last
        refresh (every 10 s).
      </p>
      <AsyncState state={list} what="SMPP binds" />
      {list.data && <BindsTable binds={list.data.items} withAccount />}
    </Page>
  );
}
