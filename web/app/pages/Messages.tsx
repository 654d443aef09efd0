import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import {
  CHANNELS,
  contentText,
  formatMoney,
  formatTime,
  MESSAGE_STATUSES,
  READ_STATUSES,
} from '../../shared/format.js';
import { AsyncState, ListTable, Page, Pager, SelectField, TextField, useAsync } from '../../shared/ui.js';
import { traffic } from '../session.js';

/** The list's filters, as URL parameters (so that a search can be bookmarked and the back button works). */
const FILTERS = [
  'time_from',
  'time_to',
  'status',
  'channel_type',
  'direction',
  'destination',
  'sender_name',
  'tags',
  'message_uuid',
  'cascade_message_uuid',
  'dispatch_id',
  'content',
] as const;
type Filters = Record<(typeof FILTERS)[number], string>;
const PER_PAGE = ['20', '50', '100'];
/** The API lists at most this deep (page x per_page); older messages are found by narrowing the dates. */
const MAX_LIST_DEPTH = 10_000;

/** The API's query for the URL's filters: whole days from the date inputs, UTC. */
function apiQuery(query: URLSearchParams) {
  const out: Record<string, string> = {};
  for (const name of FILTERS) {
    const value = query.get(name)?.trim();
    if (value) out[name] = value;
  }
  if (out.time_from && /^\d{4}-\d{2}-\d{2}$/.test(out.time_from)) out.time_from += ' 00:00:00';
  if (out.time_to && /^\d{4}-\d{2}-\d{2}$/.test(out.time_to)) out.time_to += ' 23:59:59';
  return { ...out, page: query.get('page') ?? '1', per_page: query.get('per_page') ?? '50' };
}

/** Messages: the list's filters, server-side pagination (never all rows), a link to each message. */
export function Messages() {
  const { url, query, route } = useLocation();
  const search = new URLSearchParams(query).toString();
  const initial = Object.fromEntries(FILTERS.map((name) => [name, query[name] ?? ''])) as Filters;
  const [filters, setFilters] = useState<Filters>(initial);
  const [perPage, setPerPage] = useState(query.per_page ?? '50');
  // The back and forward buttons change the URL under the form.
  useEffect(() => {
    setFilters(initial);
    setPerPage(query.per_page ?? '50');
  }, [search]);
  const list = useAsync(
    (signal) => traffic.get('/api/v1/message', { signal, query: apiQuery(new URLSearchParams(search)) }),
    [search],
  );

  const set = (name: keyof Filters) => (value: string) => setFilters({ ...filters, [name]: value });
  const go = (next: Filters, page: number, size = perPage) => {
    const params = new URLSearchParams();
    for (const name of FILTERS) if (next[name].trim()) params.set(name, next[name].trim());
    if (page > 1) params.set('page', String(page));
    if (size !== '50') params.set('per_page', size);
    const text = params.toString();
    const to = `/app/messages${text ? `?${text}` : ''}`;
    // The same search again adds no history entry. A new one starts at the top, like a new page: preact-iso
    // scrolls up only when the path changes.
    if (to === url) return;
    route(to);
    scrollTo(0, 0);
  };
  const clear = () => {
    const empty = Object.fromEntries(FILTERS.map((name) => [name, ''])) as Filters;
    setFilters(empty);
    go(empty, 1);
  };

  return (
    <Page title="Messages">
      <form
        class="card filters"
        role="search"
        aria-label="Message filters"
        onSubmit={(e) => {
          e.preventDefault();
          go(filters, 1);
        }}
      >
        <div class="grid">
          <TextField label="From date" type="date" value={filters.time_from} onValue={set('time_from')} />
          <TextField label="To date" type="date" value={filters.time_to} onValue={set('time_to')} />
          <SelectField
            label="Status"
            value={filters.status}
            onValue={set('status')}
            options={[{ value: '', label: 'Any status' }, ...MESSAGE_STATUSES, ...READ_STATUSES]}
          />
          <SelectField
            label="Channel"
            value={filters.channel_type}
            onValue={set('channel_type')}
            options={[{ value: '', label: 'Any channel' }, ...CHANNELS]}
          />
          {/* Without direction the API lists outbound messages, as the real service does. */}
          <SelectField
            label="Direction"
            value={filters.direction}
            onValue={set('direction')}
            options={[{ value: '', label: 'outbound' }, 'inbound']}
          />
          <TextField label="Destination" value={filters.destination} onValue={set('destination')} inputMode="tel" />
          <TextField label="Sender name" value={filters.sender_name} onValue={set('sender_name')} />
          <TextField label="Tags" value={filters.tags} onValue={set('tags')} hint="Comma-separated; any of them." />
          <TextField label="Message UUID" value={filters.message_uuid} onValue={set('message_uuid')} />
          <TextField
            label="Cascade"
            value={filters.cascade_message_uuid}
            onValue={set('cascade_message_uuid')}
            hint="UUID of a cascade's first message: its steps."
          />
          <TextField
            label="Dispatch"
            value={filters.dispatch_id}
            onValue={set('dispatch_id')}
            hint="ID of a dispatch: its messages."
          />
          <TextField label="Text contains" value={filters.content} onValue={set('content')} />
          <SelectField
            label="Rows per page"
            value={perPage}
            onValue={(v) => {
              setPerPage(v);
              go(filters, 1, v);
            }}
            options={PER_PAGE}
          />
        </div>
        <div class="actions">
          <button type="submit">Search</button>
          <button type="button" class="secondary" onClick={clear}>
            Clear filters
          </button>
        </div>
      </form>

      <AsyncState state={list} what="messages" />
      {list.data && (
        <>
          <ListTable
            label="Messages"
            columns={[
              'Created',
              'Message',
              'Channel',
              'Sender',
              'Destination',
              'Status',
              { label: 'Parts', class: 'num' },
              { label: 'Price', class: 'num' },
              'Text',
            ]}
            rows={list.data.items}
            empty="No messages match these filters."
            row={(m) => (
              <tr key={m.messageUuid}>
                <td>{formatTime(m.createdTime)}</td>
                <td>
                  <a href={`/app/messages/${m.messageUuid}`} class="mono" aria-label={`Message ${m.messageUuid}`}>
                    {m.messageUuid.slice(0, 8)}…
                  </a>
                  {m.cascadeStep !== null && (
                    <>
                      {' '}
                      <span class="badge" data-testid="row-cascade-step" title="A step of a cascade">
                        step {m.cascadeStep}
                      </span>
                    </>
                  )}
                </td>
                <td>{m.channelType}</td>
                <td>{m.senderName}</td>
                <td>{m.destination}</td>
                <td>
                  <span class={`badge status-${m.status}`} data-testid="row-status">
                    {m.status}
                  </span>
                </td>
                <td class="num">{m.totalParts}</td>
                <td class="num">{formatMoney(m.price.totalPrice, m.price.currency)}</td>
                <td class="clip">{contentText(m.content)}</td>
              </tr>
            )}
          />
          <Pager
            list={list.data}
            onPage={(page) => go(initial, page)}
            label="Message pages"
            maxItems={MAX_LIST_DEPTH}
          />
        </>
      )}
    </Page>
  );
}
