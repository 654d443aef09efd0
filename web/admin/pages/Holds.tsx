import { codeWord, t, texts } from '../../shared/i18n/index.js';
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
  useLiveReload,
  useNotice,
} from '../../shared/ui.js';
import type { Answer, Item } from '../../shared/apiClient.js';
import { AccountLink, accountLabel, accountSortKey, useAccountName } from '../accountNames.js';
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
  // Holds open and grow by themselves (a burst goes on): read again while the tab is shown.
  useLiveReload(list, true);
  const decide = (id: number, what: string, decision: 'release' | 'reject') =>
    void action.run(async () => {
      const path = decision === 'release' ? '/admin/v1/holds/{id}/release' : '/admin/v1/holds/{id}/reject';
      const hold = await admin.post(path, { params: { id } });
      list.reload();
      return decision === 'release'
        ? t('holds.released', { what, count: hold.messages })
        : t('holds.rejected', { what, count: hold.messages });
    });
  return (
    <Page
      title={t('admin.nav.holds')}
      actions={
        <button type="button" class="secondary" onClick={list.reload}>
          {t('ui.refresh')}
        </button>
      }
    >
      <p class="hint">{t('holds.hint')}</p>
      <NoticeLine notice={notice.notice} />
      <AsyncState state={list} what={t('holds.theHolds')} />
      {list.data && (
        <>
          <ListTable
            label={t('holds.table')}
            columns={[
              ...texts(
                'col.account',
                'holds.rangeOrCountry',
                'col.messages',
                'holds.allowance',
                'holds.first',
                'holds.last',
              ),
              { label: t('ui.actions'), hidden: true },
            ]}
            sorts={[
              (h) => accountSortKey(h.accountId),
              (h) => h.key,
              (h) => h.messages,
              (h) => h.allowance,
              (h) => h.firstTime,
              (h) => h.lastTime,
              undefined,
            ]}
            rows={list.data.items}
            empty={t('holds.none')}
            row={(h) => <HoldRow key={h.id} hold={h} busy={action.busy} onDecide={decide} />}
          />
          <Pager list={list.data} onPage={setPage} label={t('holds.pages')} />
        </>
      )}
    </Page>
  );
}

type Hold = Item<Answer<'/admin/v1/holds', 'get'>>;

/** An open hold; its buttons name the range or country and the account by name ("range 7916 of account Shop (#3)"). */
function HoldRow({
  hold: h,
  busy,
  onDecide,
}: {
  hold: Hold;
  busy: boolean;
  onDecide: (id: number, what: string, decision: 'release' | 'reject') => void;
}) {
  const account = accountLabel(h.accountId, useAccountName(h.accountId));
  const what = t('holds.what', { kind: codeWord('holdKind', h.kind), key: h.key, account });
  return (
    <tr data-testid="hold-row">
      <td>
        <AccountLink id={h.accountId} />
      </td>
      <th scope="row">
        {h.kind === 'range' ? `${h.key}xxxx` : h.key} ({codeWord('holdKind', h.kind)})
      </th>
      <td>{h.messages}</td>
      <td>{h.allowance}</td>
      <td>{formatTime(h.firstTime)}</td>
      <td>{formatTime(h.lastTime)}</td>
      <td>
        <ConfirmButton
          label={t('holds.release')}
          name={what}
          disabled={busy}
          onConfirm={() => onDecide(h.id, what, 'release')}
        />{' '}
        <ConfirmButton
          label={t('moderation.reject')}
          name={what}
          disabled={busy}
          onConfirm={() => onDecide(h.id, what, 'reject')}
        />
      </td>
    </tr>
  );
}
