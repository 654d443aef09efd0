import { useState } from 'preact/hooks';
import { formatTime } from '../../shared/format.js';
import { AsyncState, ListTable, Page, Pager, useAsync } from '../../shared/ui.js';
import { admin } from '../session.js';

const PER_PAGE = 50;

/**
 * Inbound messages no account owns (an SMS to a number not assigned, a WhatsApp message to a name no account has),
 * newest first: kept, never dropped, until the operator assigns the number and tells the client.
 */
export function Unrouted() {
  const [page, setPage] = useState(1);
  const list = useAsync(
    (signal) => admin.get('/admin/v1/inbounds/unrouted', { signal, query: { page, per_page: PER_PAGE } }),
    [page],
  );
  return (
    <Page
      title="Unrouted inbound"
      actions={
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh
        </button>
      }
    >
      <p class="hint">
        Messages from subscribers to a number or sender name no account owns. Assign the number to an account on its
        page; messages that came before stay here.
      </p>
      <AsyncState state={list} what="unrouted inbound messages" />
      {list.data && (
        <>
          <ListTable
            label="Unrouted inbound messages"
            columns={['Received', 'From', 'To number or name', 'Text', 'Connector']}
            rows={list.data.items}
            empty="No inbound message waits for an owner."
            row={(m) => (
              <tr key={m.id} data-testid="unrouted-row">
                <td>{formatTime(m.receivedAt)}</td>
                <th scope="row">{m.from}</th>
                <td>{m.senderName ?? '—'}</td>
                <td class="pre clip">{m.text}</td>
                <td>{m.connectorId}</td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label="Unrouted inbound pages" />
        </>
      )}
    </Page>
  );
}
