import { t, texts } from '../../shared/i18n/index.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatTime } from '../../shared/format.js';
import {
  AsyncState,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { accountLabel, useAccountName } from '../accountNames.js';
import { admin } from '../session.js';

const PER_PAGE = 50;
/** What an unrouted message was written to that is a number (an SMS), not a sender name (WhatsApp): digits. */
const NUMBER = /^\+?\d{3,20}$/;

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
  const [assigning, setAssigning] = useState<string | undefined>(undefined);
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
            columns={[
              ...texts('col.received', 'col.from', 'unrouted.to', 'message.text', 'col.connector'),
              { label: t('ui.actions'), hidden: true },
            ]}
            rows={list.data.items}
            empty={t('unrouted.none')}
            row={(m) => (
              <tr key={m.id} data-testid="unrouted-row">
                <td>{formatTime(m.receivedAt)}</td>
                <th scope="row">{m.from}</th>
                <td>{m.senderName ?? '—'}</td>
                <td class="pre clip">{m.text}</td>
                <td>{m.connectorId}</td>
                <td>
                  {m.senderName && NUMBER.test(m.senderName) && (
                    <button
                      type="button"
                      class="small"
                      aria-label={t('unrouted.assignNumber', { number: m.senderName })}
                      onClick={() => setAssigning(m.senderName!)}
                    >
                      {t('unrouted.assign')}
                    </button>
                  )}
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label={t('unrouted.pages')} />
          {assigning && <AssignNumber key={assigning} number={assigning} onClose={() => setAssigning(undefined)} />}
        </>
      )}
    </Page>
  );
}

/**
 * Assigns the number an unrouted SMS was written to to an account (`POST /admin/v1/accounts/{id}/inbound-numbers`),
 * as the page's hint tells the operator to: the account is named before the number is given to it.
 */
function AssignNumber({ number, onClose }: { number: string; onClose: () => void }) {
  const [accountId, setAccountId] = useState('');
  const id = /^[1-9]\d{0,15}$/.test(accountId.trim()) ? Number(accountId) : undefined;
  const name = useAccountName(id);
  const notice = useNotice();
  const action = useAction(notice);
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const assign = (event: Event) => {
    event.preventDefault();
    if (id === undefined || !name) return;
    void action.run(async () => {
      const assigned = await admin.post('/admin/v1/accounts/{id}/inbound-numbers', {
        params: { id },
        body: { channelType: 'SMS', number },
      });
      return t('unrouted.assigned', { number: assigned.number, name: accountLabel(id, name) });
    });
  };
  return (
    <form class="card" onSubmit={assign} aria-labelledby="assign-number" data-testid="assign-number">
      <h2 id="assign-number" tabIndex={-1} ref={headingRef}>
        {t('unrouted.assignNumber', { number })}
      </h2>
      <p class="hint">{t('unrouted.assignHint')}</p>
      <div class="grid">
        <TextField
          label={t('unrouted.accountFor', { number })}
          inputMode="numeric"
          value={accountId}
          onValue={setAccountId}
          required
          hint={
            id === undefined
              ? t('unrouted.accountId')
              : name === undefined
                ? t('ui.loading', { what: t('account.theAccount') })
                : name === null
                  ? t('unrouted.noAccount', { id })
                  : accountLabel(id, name)
          }
        />
      </div>
      <div class="actions">
        <button type="submit" disabled={action.busy || !name}>
          {name && id !== undefined
            ? t('unrouted.assignTo', { number, name: accountLabel(id, name) })
            : t('unrouted.assign')}
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          {t('ui.cancel')}
        </button>
      </div>
      <NoticeLine notice={notice.notice} />
    </form>
  );
}
