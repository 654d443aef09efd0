import { useState } from 'preact/hooks';
import { formatTime } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { admin } from '../session.js';

const PER_PAGE = 50;

/**
 * Fraud holds (docs/fraud.md, Pumping): bursts to one number range or foreign country far above an account's
 * baseline, held until the operator releases them (sent; the range or country trusted for the rest of the day) or
 * rejects them (each message unsent, 7701, refunded).
 */
export function Holds() {
  const notice = useNotice();
  const action = useAction(notice);
  const [page, setPage] = useState(1);
  const list = useAsync(
    (signal) => admin.get('/admin/v1/holds', { signal, query: { status: 'open', page, per_page: PER_PAGE } }),
    [page],
  );
  const decide = (id: number, what: string, decision: 'release' | 'reject') =>
    void action.run(async () => {
      const path = decision === 'release' ? '/admin/v1/holds/{id}/release' : '/admin/v1/holds/{id}/reject';
      const hold = await admin.post(path, { params: { id } });
      list.reload();
      return decision === 'release'
        ? `Released ${what}: ${hold.messages} messages go`
        : `Rejected ${what}: ${hold.messages} messages unsent and refunded`;
    });
  return (
    <Page
      title="Fraud holds"
      actions={
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh
        </button>
      }
    >
      <p class="hint">
        Bursts the pumping detection held: many messages to one number range (the number without its last 4 digits) or
        one foreign country, far above the account's usual traffic. Release sends them and trusts the range or country
        for the rest of the day; reject ends each message unsent (7701) and refunds it.
      </p>
      <NoticeLine notice={notice.notice} />
      <AsyncState state={list} what="fraud holds" />
      {list.data && (
        <>
          <ListTable
            label="Open fraud holds"
            columns={['Account', 'Range or country', 'Messages', 'Allowance an hour', 'First held', 'Last held', '']}
            rows={list.data.items}
            empty="No hold waits for a decision."
            row={(h) => {
              const what = `${h.kind} ${h.key} of account ${h.accountId}`;
              return (
                <tr key={h.id} data-testid="hold-row">
                  <td>
                    <a href={`/admin/accounts/${h.accountId}`}>{h.accountId}</a>
                  </td>
                  <th scope="row">
                    {h.kind === 'range' ? `${h.key}xxxx` : h.key} ({h.kind})
                  </th>
                  <td>{h.messages}</td>
                  <td>{h.allowance}</td>
                  <td>{formatTime(h.firstTime)}</td>
                  <td>{formatTime(h.lastTime)}</td>
                  <td>
                    <button
                      type="button"
                      class="small"
                      disabled={action.busy}
                      aria-label={`Release ${what}`}
                      onClick={() => decide(h.id, what, 'release')}
                    >
                      Release
                    </button>{' '}
                    <ConfirmButton
                      label="Reject"
                      name={what}
                      disabled={action.busy}
                      onConfirm={() => decide(h.id, what, 'reject')}
                    />
                  </td>
                </tr>
              );
            }}
          />
          <Pager list={list.data} onPage={setPage} label="Fraud hold pages" />
        </>
      )}
    </Page>
  );
}
