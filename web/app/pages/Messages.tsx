import { type MessageKey } from '../../shared/i18n/en.js';
import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useLayoutEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import {
  CHANNELS,
  contentText,
  formatMoney,
  formatNumber,
  formatTime,
  localDay,
  localDayEnd,
  localDayStart,
  MESSAGE_STATUSES,
  READ_STATUSES,
} from '../../shared/format.js';
import {
  AsyncState,
  ListTable,
  Page,
  Pager,
  SelectField,
  TextField,
  useAsync,
  useLiveReload,
  Uuid,
} from '../../shared/ui.js';
import { deliveryErrorCodes, explainMessageError } from '../../shared/errorWords.js';
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
  'error_code',
] as const;
type Filters = Record<(typeof FILTERS)[number], string>;
const PER_PAGE = ['20', '50', '100'];
/** The API lists at most this deep (page x per_page); older messages are found by narrowing the dates. */
const MAX_LIST_DEPTH = 10_000;

/**
 * The API's query for the URL's filters: the date inputs are whole days of the reader's time zone (the one every
 * time on the pages is shown in), sent as the UTC instants they begin and end at.
 */
function apiQuery(query: URLSearchParams) {
  const out: Record<string, string> = {};
  for (const name of FILTERS) {
    const value = query.get(name)?.trim();
    if (value) out[name] = value;
  }
  if (out.time_from) out.time_from = localDayStart(out.time_from)?.toISOString() ?? out.time_from;
  if (out.time_to) out.time_to = localDayEnd(out.time_to)?.toISOString() ?? out.time_to;
  return { ...out, page: query.get('page') ?? '1', per_page: query.get('per_page') ?? '50' };
}

/** Filters that read their messages through an index: an error code needs no date range with one of them. */
const KEYS = ['destination', 'dispatch_id', 'cascade_message_uuid', 'message_uuid'] as const;
/** The days an error code filter covers without a key (the API's bound: at most 31 days). */
const ERROR_FILTER_DAYS = 31;

/**
 * Filters as they are searched: an error code without a key gets the dates it lacks, the last 31 days to today,
 * since the API reads that filter's messages one by one and takes at most 31 days of them.
 */
export function withErrorRange(filters: Filters, today: Date): Filters {
  if (!filters.error_code.trim() || KEYS.some((k) => filters[k].trim())) return filters;
  if (filters.time_from && filters.time_to) return filters;
  const to = filters.time_to || localDay(today);
  const end = localDayStart(to) ?? today;
  const from =
    filters.time_from || localDay(new Date(end.getFullYear(), end.getMonth(), end.getDate() - (ERROR_FILTER_DAYS - 1)));
  return { ...filters, time_from: from, time_to: to };
}

/** The error code filter's options: any, Herald's own codes in words, and a code from the URL that is another's. */
function errorOptions(current: string) {
  const codes = deliveryErrorCodes();
  const options = [
    { value: '', label: t('errors.anyError') },
    ...codes.map((code) => ({ value: String(code), label: errorOption(code) })),
  ];
  if (current && !codes.includes(Number(current)))
    options.push({ value: current, label: errorOption(Number(current)) });
  return options;
}

const errorOption = (code: number) => `${code}: ${explainMessageError(code).text}`;

/** Messages: the list's filters, server-side pagination (never all rows), a link to each message. */
export function Messages() {
  const { url, query, route } = useLocation();
  const search = new URLSearchParams(query).toString();
  const initial = Object.fromEntries(FILTERS.map((name) => [name, query[name] ?? ''])) as Filters;
  const [filters, setFilters] = useState<Filters>(initial);
  const [perPage, setPerPage] = useState(query.per_page ?? '50');
  // The back and forward buttons change the URL under the form. The form follows in the render's own commit: an effect
  // runs after the next frame, and would undo what was chosen in the form between the two.
  useLayoutEffect(() => {
    setFilters(initial);
    setPerPage(query.per_page ?? '50');
  }, [search]);
  const list = useAsync(
    (signal) => traffic.get('/api/v1/message', { signal, query: apiQuery(new URLSearchParams(search)) }),
    [search],
  );
  // Statuses change by themselves: the list is read again while the tab is shown (shared/ui.tsx useLiveReload).
  useLiveReload(list, true);

  const set = (name: keyof Filters) => (value: string) => setFilters({ ...filters, [name]: value });
  const filterField = (name: keyof Filters, label: MessageKey, hint?: MessageKey) => (
    <TextField label={t(label)} value={filters[name]} onValue={set(name)} {...(hint ? { hint: t(hint) } : {})} />
  );
  const go = (asked: Filters, page: number, size = perPage) => {
    const next = withErrorRange(asked, new Date());
    if (next !== asked) setFilters(next);
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
    <Page title={t('app.nav.messages')}>
      <form
        class="card filters"
        role="search"
        aria-label={t('messages.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          go(filters, 1);
        }}
      >
        <div class="grid">
          <TextField label={t('messages.fromDate')} type="date" value={filters.time_from} onValue={set('time_from')} />
          <TextField label={t('messages.toDate')} type="date" value={filters.time_to} onValue={set('time_to')} />
          <SelectField
            label={t('col.status')}
            value={filters.status}
            onValue={set('status')}
            options={[
              { value: '', label: t('messages.anyStatus') },
              ...[...MESSAGE_STATUSES, ...READ_STATUSES].map((value) => ({ value, label: codeWord('status', value) })),
            ]}
          />
          <SelectField
            label={t('col.channel')}
            value={filters.channel_type}
            onValue={set('channel_type')}
            options={[
              { value: '', label: t('messages.anyChannel') },
              ...CHANNELS.map((value) => ({ value, label: codeWord('channel', value) })),
            ]}
          />
          {/* Without direction the API lists outbound messages, as the real service does. */}
          <SelectField
            label={t('messages.direction')}
            value={filters.direction}
            onValue={set('direction')}
            options={[
              { value: '', label: t('message.outbound') },
              { value: 'inbound', label: t('message.inbound') },
            ]}
          />
          <TextField
            label={t('message.destination')}
            value={filters.destination}
            onValue={set('destination')}
            inputMode="tel"
          />
          {filterField('sender_name', 'col.senderName')}
          {filterField('tags', 'message.tags', 'messages.tagsHint')}
          {filterField('message_uuid', 'messages.uuid')}
          {filterField('cascade_message_uuid', 'message.cascade', 'messages.cascadeHint')}
          {filterField('dispatch_id', 'message.dispatch', 'messages.dispatchHint')}
          {filterField('content', 'messages.textContains')}
          <SelectField
            label={t('errors.filter')}
            value={filters.error_code}
            onValue={set('error_code')}
            options={errorOptions(filters.error_code)}
          />
          <SelectField
            label={t('messages.perPage')}
            value={perPage}
            onValue={(v) => {
              setPerPage(v);
              go(filters, 1, v);
            }}
            options={PER_PAGE}
          />
        </div>
        <div class="actions">
          <button type="submit">{t('messages.search')}</button>
          <button type="button" class="secondary" onClick={clear}>
            {t('messages.clear')}
          </button>
        </div>
      </form>

      <AsyncState state={list} what={t('messages.theMessages')} />
      {list.data && (
        <>
          <ListTable
            label={t('app.nav.messages')}
            columns={[
              ...texts('col.created', 'col.message', 'col.channel', 'col.sender', 'col.destination', 'col.status'),
              { label: t('col.parts'), class: 'num' },
              { label: t('message.price'), class: 'num' },
              t('col.error'),
              t('message.text'),
            ]}
            sorts={[
              (m) => m.createdTime,
              (m) => m.messageUuid,
              (m) => codeWord('channel', m.channelType),
              (m) => m.senderName,
              (m) => m.destination,
              (m) => codeWord('status', m.status),
              (m) => m.totalParts,
              (m) => m.price.totalPrice,
            ]}
            rows={list.data.items}
            empty={t('messages.none')}
            row={(m) => (
              <tr key={m.messageUuid}>
                <td>{formatTime(m.createdTime)}</td>
                <td>
                  <a
                    href={`/app/messages/${m.messageUuid}`}
                    class="mono"
                    aria-label={t('messages.messageLabel', { uuid: m.messageUuid })}
                  >
                    <Uuid value={m.messageUuid} />
                  </a>
                  {m.cascadeStep !== null && (
                    <>
                      {' '}
                      <span class="badge" data-testid="row-cascade-step" title={t('messages.cascadeStep')}>
                        {t('message.step', { step: m.cascadeStep })}
                      </span>
                    </>
                  )}
                </td>
                <td>{codeWord('channel', m.channelType)}</td>
                <td>{m.senderName}</td>
                <td>{m.destination}</td>
                <td>
                  <span class={`badge status-${m.status}`} data-testid="row-status">
                    {codeWord('status', m.status)}
                  </span>
                </td>
                <td class="num">{formatNumber(m.totalParts)}</td>
                <td class="num">{formatMoney(m.price.totalPrice, m.price.currency)}</td>
                <td data-testid="row-error">{m.errorCode === null ? '—' : <RowError code={m.errorCode} />}</td>
                <td class="clip">{contentText(m.content)}</td>
              </tr>
            )}
          />
          <Pager
            list={list.data}
            onPage={(page) => go(initial, page)}
            label={t('messages.pages')}
            maxItems={MAX_LIST_DEPTH}
          />
        </>
      )}
    </Page>
  );
}

/** A message's error in a row: its words and its code, the advice in the title (the message page has it in full). */
function RowError({ code }: { code: number }) {
  const explained = explainMessageError(code);
  return (
    <span title={explained.advice}>
      {explained.text} <small class="hint">({code})</small>
    </span>
  );
}
