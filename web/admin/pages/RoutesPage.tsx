import { Fragment } from 'preact';
import { type MessageKey } from '../../shared/i18n/en.js';
import { currentLocale, codeOptions, codeWord, t, texts } from '../../shared/i18n/index.js';
import { useRef, useState } from 'preact/hooks';
import { CHANNELS, formatAmount, formatTime, formatNumber } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  SelectField,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { MATCH_LISTS } from '../routeForm.js';
import { AccountLink } from '../accountNames.js';
import { admin } from '../session.js';
import type { Route } from '../types.js';
import { ResolveBox } from './ResolveBox.js';
import { type ConnectorChoice, RouteForm } from './RouteForm.js';

const PER_PAGE = 50;
/** Values of one match list shown in the table; the rest are counted ("+9995 more"). */
const SHOWN_VALUES = 5;

const MATCH_NAMES: Readonly<Record<(typeof MATCH_LISTS)[number], MessageKey>> = {
  accountIds: 'routes.match.accountIds',
  trafficTypes: 'routes.match.trafficTypes',
  senderNames: 'routes.match.senderNames',
  prefixes: 'routes.match.prefixes',
  countries: 'routes.match.countries',
  operators: 'routes.match.operators',
};

/** The route's match in lines, but its accounts (shown by name, AccountsLine). */
function matchLines(route: Route): string[] {
  const lines = MATCH_LISTS.flatMap((field) => {
    const values = route.match[field];
    if (!values || field === 'accountIds') return [];
    const more = values.length > SHOWN_VALUES ? t('routes.more', { count: values.length - SHOWN_VALUES }) : '';
    return [`${t(MATCH_NAMES[field])}: ${values.slice(0, SHOWN_VALUES).join(', ')}${more}`];
  });
  return lines.length > 0 || route.match.accountIds ? lines : [t('routes.anyDestination')];
}

/** "Account ids: Shop (#3), Cafe (#5)", each a link, the rest counted. */
function AccountsLine({ ids }: { ids: readonly number[] }) {
  return (
    <li>
      {t('routes.match.accountIds')}:{' '}
      {ids.slice(0, SHOWN_VALUES).map((id, i) => (
        <Fragment key={id}>
          {i > 0 && ', '}
          <AccountLink id={id} />
        </Fragment>
      ))}
      {ids.length > SHOWN_VALUES ? t('routes.more', { count: ids.length - SHOWN_VALUES }) : ''}
    </li>
  );
}

const rerouteText = (r: Route['reroute']) =>
  r
    ? [
        r.errorCodes.length > 0 ? t('routes.codes', { codes: r.errorCodes.join(', ') }) : '',
        r.onUndelivered ? codeWord('status', 'undelivered') : '',
        t('routes.max', { max: r.max }),
      ]
        .filter(Boolean)
        .join('; ')
    : '—';

const qualityText = (q: Route['quality']) =>
  q
    ? t('routes.quality', {
        rate: (q.minDeliveryRate * 100).toLocaleString(currentLocale()),
        seconds: formatNumber(q.windowSeconds),
      })
    : '—';

/**
 * Routes (DESIGN 21): the operator's route table, highest priority first, filtered by channel or account; add and
 * edit a route, delete one (two clicks), move one above or below its neighbour (reorder), and ask which route a
 * message would take now.
 */
export function RoutesPage() {
  const notice = useNotice();
  const action = useAction(notice);
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState({ channelType: '', accountId: '' });
  const [draft, setDraft] = useState(filter);
  const [editing, setEditing] = useState<Route | undefined>(undefined);
  // A new key starts the form afresh: after a route is added, or when editing starts, stops or moves to another.
  const [formKey, setFormKey] = useState(0);
  const formRef = useRef<HTMLDivElement>(null);
  const list = useAsync(
    (signal) =>
      admin.get('/admin/v1/routes', {
        signal,
        query: {
          page,
          per_page: PER_PAGE,
          channelType: filter.channelType || undefined,
          accountId: filter.accountId || undefined,
        },
      }),
    [page, filter],
  );
  const reported = useAsync((signal) => admin.get('/admin/v1/connectors', { signal }), []);
  const connectors: ConnectorChoice[] = [
    ...new Map((reported.data?.items ?? []).map((c) => [c.id, { id: c.id, channel: c.channel }])).values(),
  ];

  const startEditing = (route: Route | undefined) => {
    setEditing(route);
    setFormKey((k) => k + 1);
    notice.clear();
    if (route) requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('h2')?.focus());
  };
  const move = (route: Route, neighbour: Route, direction: 'up' | 'down') =>
    void action.run(async () => {
      // The two get adjacent priorities from the higher of theirs down, in their new order; no other route moves.
      const ids = direction === 'up' ? [route.id, neighbour.id] : [neighbour.id, route.id];
      await admin.post('/admin/v1/routes/reorder', { body: { ids } });
      list.reload();
      return t(direction === 'up' ? 'routes.movedAbove' : 'routes.movedBelow', { id: route.id, other: neighbour.id });
    });
  const remove = (route: Route) =>
    void action.run(async () => {
      await admin.delete('/admin/v1/routes/{id}', { params: { id: route.id } });
      if (editing?.id === route.id) startEditing(undefined);
      list.reload();
      return t('routes.deleted', { id: route.id });
    });

  return (
    <Page title={t('admin.nav.routes')}>
      <p class="lead">{t('routes.lead')}</p>
      <div ref={formRef}>
        <RouteForm
          key={formKey}
          editing={editing}
          connectors={connectors}
          action={action}
          onSaved={() => {
            startEditing(undefined);
            list.reload();
          }}
          onCancel={() => startEditing(undefined)}
        />
      </div>
      <NoticeLine notice={notice.notice} />

      <h2>{t('routes.table')}</h2>
      <form
        class="toolbar"
        role="search"
        aria-label={t('routes.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setFilter({ channelType: draft.channelType, accountId: draft.accountId.trim() });
        }}
      >
        <SelectField
          label={t('routes.showChannel')}
          value={draft.channelType}
          onValue={(channelType) => setDraft({ ...draft, channelType })}
          options={codeOptions('channel', CHANNELS, 'stopList.everyChannelCap')}
        />
        <TextField
          label={t('routes.ofAccount')}
          type="number"
          min="1"
          value={draft.accountId}
          onValue={(accountId) => setDraft({ ...draft, accountId })}
          hint={t('routes.ofAccountHint')}
        />
        <button type="submit" class="secondary">
          {t('tariffs.filterButton')}
        </button>
      </form>
      <AsyncState state={list} what={t('routes.theRoutes')} />
      {list.data && (
        <>
          <ListTable
            label={t('admin.nav.routes')}
            columns={[
              t('margins.route'),
              { label: t('routes.priority'), class: 'num' },
              ...texts('col.channel', 'routes.matchCol', 'admin.nav.connectors', 'routes.strategy', 'routes.reroute'),
              ...texts('routes.qualityCol', 'col.updated'),
              { label: t('ui.actions'), hidden: true },
            ]}
            rows={list.data.items}
            empty={t('routes.none')}
            row={(r, i) => {
              const items = list.data!.items;
              const above = items[i - 1];
              const below = items[i + 1];
              return (
                <tr key={r.id} data-testid="route-row" aria-current={editing?.id === r.id ? 'true' : undefined}>
                  <th scope="row">{r.id}</th>
                  <td class="num" data-testid="route-priority">
                    {r.priority}
                  </td>
                  <td>{codeWord('channel', r.match.channelType)}</td>
                  <td class="wrap" data-testid="route-match">
                    <ul class="plain">
                      {r.match.accountIds && <AccountsLine ids={r.match.accountIds.map(Number)} />}
                      {matchLines(r).map((line) => (
                        <li key={line}>{line}</li>
                      ))}
                    </ul>
                  </td>
                  <td class="wrap" data-testid="route-connectors">
                    <ol class="plain">
                      {r.connectors.map((c) => (
                        <li key={c.connectorId}>
                          {c.connectorId}
                          {c.weight !== undefined && ` ×${c.weight}`}
                          {c.buyPrice && ` · ${formatAmount(c.buyPrice.amount, c.buyPrice.currency)}`}
                        </li>
                      ))}
                    </ol>
                  </td>
                  <td>{codeWord('strategy', r.strategy)}</td>
                  <td class="wrap">{rerouteText(r.reroute)}</td>
                  <td class="wrap">{qualityText(r.quality)}</td>
                  <td class="wrap">{formatTime(r.updatedTime)}</td>
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={t('routes.editRoute', { id: r.id })}
                        onClick={() => startEditing(r)}
                      >
                        {t('verifiers.editButton')}
                      </button>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={t('routes.moveUp', { id: r.id })}
                        disabled={action.busy || !above}
                        onClick={() => above && move(r, above, 'up')}
                      >
                        {t('routes.up')}
                      </button>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={t('routes.moveDown', { id: r.id })}
                        disabled={action.busy || !below}
                        onClick={() => below && move(r, below, 'down')}
                      >
                        {t('routes.down')}
                      </button>
                      <ConfirmButton
                        label={t('ui.delete')}
                        name={t('routes.name', { id: r.id })}
                        disabled={action.busy}
                        onConfirm={() => remove(r)}
                      />
                    </div>
                  </td>
                </tr>
              );
            }}
          />
          <Pager list={list.data} onPage={setPage} label={t('routes.pages')} />
        </>
      )}

      <ResolveBox />
    </Page>
  );
}
