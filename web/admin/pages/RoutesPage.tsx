import { currentLocale } from '../../shared/i18n/index.js';
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
import { admin } from '../session.js';
import type { Route } from '../types.js';
import { ResolveBox } from './ResolveBox.js';
import { type ConnectorChoice, RouteForm } from './RouteForm.js';

const PER_PAGE = 50;
/** Values of one match list shown in the table; the rest are counted ("+9995 more"). */
const SHOWN_VALUES = 5;

const MATCH_NAMES: Readonly<Record<(typeof MATCH_LISTS)[number], string>> = {
  accountIds: 'accounts',
  trafficTypes: 'traffic',
  senderNames: 'senders',
  prefixes: 'prefixes',
  countries: 'countries',
  operators: 'operators',
};

function matchLines(route: Route): string[] {
  const lines = MATCH_LISTS.flatMap((field) => {
    const values = route.match[field];
    if (!values) return [];
    const more = values.length > SHOWN_VALUES ? ` +${values.length - SHOWN_VALUES} more` : '';
    return [`${MATCH_NAMES[field]}: ${values.slice(0, SHOWN_VALUES).join(', ')}${more}`];
  });
  return lines.length > 0 ? lines : ['any destination'];
}

const rerouteText = (r: Route['reroute']) =>
  r
    ? [
        r.errorCodes.length > 0 ? `codes ${r.errorCodes.join(', ')}` : '',
        r.onUndelivered ? 'undelivered' : '',
        `max ${r.max}`,
      ]
        .filter(Boolean)
        .join('; ')
    : '—';

const qualityText = (q: Route['quality']) =>
  q ? `≥ ${(q.minDeliveryRate * 100).toLocaleString(currentLocale())} % over ${formatNumber(q.windowSeconds)} s` : '—';

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
      return `Route ${route.id} moved ${direction === 'up' ? 'above' : 'below'} route ${neighbour.id}.`;
    });
  const remove = (route: Route) =>
    void action.run(async () => {
      await admin.delete('/admin/v1/routes/{id}', { params: { id: route.id } });
      if (editing?.id === route.id) startEditing(undefined);
      list.reload();
      return `Route ${route.id} deleted.`;
    });

  return (
    <Page title="Routes">
      <p class="lead">
        A message goes by the matching route of the highest priority (among equal ones, the one with more match fields
        given, then the longest prefix). Changes reach every process within seconds.
      </p>
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

      <h2>Route table</h2>
      <form
        class="toolbar"
        role="search"
        aria-label="Route filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setFilter({ channelType: draft.channelType, accountId: draft.accountId.trim() });
        }}
      >
        <SelectField
          label="Show channel"
          value={draft.channelType}
          onValue={(channelType) => setDraft({ ...draft, channelType })}
          options={[{ value: '', label: 'Every channel' }, ...CHANNELS]}
        />
        <TextField
          label="Show routes of account"
          type="number"
          min="1"
          value={draft.accountId}
          onValue={(accountId) => setDraft({ ...draft, accountId })}
          hint="Routes naming it; empty: all."
        />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <AsyncState state={list} what="routes" />
      {list.data && (
        <>
          <ListTable
            label="Routes"
            columns={[
              'Route',
              { label: 'Priority', class: 'num' },
              'Channel',
              'Match',
              'Connectors',
              'Strategy',
              'Reroute',
              'Quality',
              'Updated',
              { label: 'Actions', hidden: true },
            ]}
            rows={list.data.items}
            empty="No routes: messages wait for one (DESIGN 21), or add a route above."
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
                  <td>{r.match.channelType}</td>
                  <td class="wrap" data-testid="route-match">
                    <ul class="plain">
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
                  <td>{r.strategy}</td>
                  <td class="wrap">{rerouteText(r.reroute)}</td>
                  <td class="wrap">{qualityText(r.quality)}</td>
                  <td class="wrap">{formatTime(r.updatedTime)}</td>
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Edit route ${r.id}`}
                        onClick={() => startEditing(r)}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Move route ${r.id} up`}
                        disabled={action.busy || !above}
                        onClick={() => above && move(r, above, 'up')}
                      >
                        Up
                      </button>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Move route ${r.id} down`}
                        disabled={action.busy || !below}
                        onClick={() => below && move(r, below, 'down')}
                      >
                        Down
                      </button>
                      <ConfirmButton
                        label="Delete"
                        name={`route ${r.id}`}
                        disabled={action.busy}
                        onConfirm={() => remove(r)}
                      />
                    </div>
                  </td>
                </tr>
              );
            }}
          />
          <Pager list={list.data} onPage={setPage} label="Route pages" />
        </>
      )}

      <ResolveBox />
    </Page>
  );
}
