import { t, texts } from '../../shared/i18n/index.js';
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
      title={t('admin.nav.unrouted')}
      actions={
        <button type="button" class="secondary" onClick={list.reload}>
          {t('ui.refresh')}
        </button>
      }
    >
      <p class="hint">{t('unrouted.hint')}</p>
      <AsyncState state={list} what={t('unrouted.theMessages')} />
      {list.data && (
        <>
          <ListTable
            label={t('unrouted.table')}
            columns={texts('col.received', 'col.from', 'unrouted.to', 'message.text', 'col.connector')}
            rows={list.data.items}
            empty={t('unrouted.none')}
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
          <Pager list={list.data} onPage={setPage} label={t('unrouted.pages')} />
        </>
      )}
    </Page>
  );
}
