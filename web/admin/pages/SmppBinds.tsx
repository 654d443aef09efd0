import { BindsTable } from '../../shared/smppBinds.js';
import { AsyncState, Page, useAsync } from '../../shared/ui.js';
import { admin } from '../session.js';

/** Every client bind of the SMPP server of this api process (docs/smpp-server.md). */
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
        Clients bound to Herald's SMPP server (HERALD_SMPP_PORT) through this api process: each process lists its own.
      </p>
      <AsyncState state={list} what="SMPP binds" />
      {list.data && <BindsTable binds={list.data.items} withAccount />}
    </Page>
  );
}
