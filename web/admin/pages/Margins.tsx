import { useState } from 'preact/hooks';
import { ApiError } from '../../shared/api.js';
import { formatAmount, utcDay, formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, Page, SelectField, TextField, useAsync } from '../../shared/ui.js';
import { admin } from '../session.js';
import type { MarginItem } from '../types.js';

const DAY_MS = 86_400_000;
/** The longest report the API gives (its MARGIN_MAX_DAYS). */
const MAX_DAYS = 31;
const GROUPS = [
  { value: 'account', label: 'Account' },
  { value: 'route', label: 'Route' },
  { value: 'connector', label: 'Connector' },
  { value: 'day', label: 'Day (UTC)' },
] as const;
type Group = (typeof GROUPS)[number]['value'];

interface Query {
  readonly from: string;
  readonly to: string;
  readonly groupBy: Group;
}

/** The day after a `YYYY-MM-DD` day: the report's `to` is exclusive, the page's "To date" inclusive. */
const nextDay = (day: string) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));

/** What is wrong with the dates before they are sent, by field, or undefined. */
function datesFault(q: Query): { field: 'from' | 'to'; text: string } | undefined {
  if (!q.from) return { field: 'from', text: 'Give the first day.' };
  if (!q.to) return { field: 'to', text: 'Give the last day.' };
  const days = (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS + 1;
  if (days < 1) return { field: 'to', text: 'The last day is before the first.' };
  if (days > MAX_DAYS) return { field: 'to', text: `At most ${MAX_DAYS} days in one report.` };
  return undefined;
}

interface Total {
  readonly currency: string;
  parts: number;
  sell: number;
  buy: number;
  margin: number;
  unpriced: number;
}

/** The items' sums per currency (amounts in different currencies are never added together). */
function totalsOf(items: readonly MarginItem[]): Total[] {
  const totals = new Map<string, Total>();
  for (const item of items) {
    const total = totals.get(item.currency) ?? {
      currency: item.currency,
      parts: 0,
      sell: 0,
      buy: 0,
      margin: 0,
      unpriced: 0,
    };
    total.parts += item.parts;
    // Amounts have at most 6 decimals: summed in millionths, so that 0.1 + 0.2 shows as 0.30.
    total.sell = (Math.round(total.sell * 1e6) + Math.round(item.sell * 1e6)) / 1e6;
    total.buy = (Math.round(total.buy * 1e6) + Math.round(item.buy * 1e6)) / 1e6;
    total.margin = (Math.round(total.margin * 1e6) + Math.round(item.margin * 1e6)) / 1e6;
    total.unpriced += item.unpriced;
    totals.set(item.currency, total);
  }
  return [...totals.values()];
}

function KeyCell({ groupBy, value }: { groupBy: Group; value: string }) {
  if (groupBy === 'account') return <a href={`/admin/accounts/${value}`}>{value}</a>;
  if (groupBy === 'route' && value === 'none') return <>none (sent without a route of the table)</>;
  return <>{value}</>;
}

/**
 * Margins (DESIGN 21, GET /admin/v1/reports/margin): what the messages sent over some UTC days were sold and bought
 * for, by account, route, connector or day, in the sale's currency, with totals per currency.
 */
export function Margins() {
  const today = utcDay(new Date());
  const [draft, setDraft] = useState<Query>({
    from: utcDay(new Date(Date.now() - (MAX_DAYS - 2) * DAY_MS)),
    to: today,
    groupBy: 'account',
  });
  const [query, setQuery] = useState<Query>(draft);
  const [fault, setFault] = useState<ReturnType<typeof datesFault>>(undefined);
  const report = useAsync(
    (signal) =>
      admin.get('/admin/v1/reports/margin', {
        signal,
        query: { from: query.from, to: nextDay(query.to), groupBy: query.groupBy },
      }),
    [query],
  );
  // A refusal about the dates is shown at the date it names.
  const apiField =
    report.error instanceof ApiError ? /^Invalid (from|to)\b/.exec(report.error.message)?.[1] : undefined;
  const errorAt = (field: 'from' | 'to') =>
    fault?.field === field
      ? fault.text
      : apiField === field && report.error instanceof ApiError
        ? report.error.message
        : undefined;

  const submit = (event: Event) => {
    event.preventDefault();
    const wrong = datesFault(draft);
    setFault(wrong);
    if (!wrong) setQuery({ ...draft });
  };
  const shown = report.data;
  const group = GROUPS.find((g) => g.value === (shown?.groupBy ?? query.groupBy))!;

  return (
    <Page title="Margins">
      <p class="lead">
        Messages sent over the days chosen (by the day they were created, UTC): what they were sold for (tariffs),
        bought for (the buy prices of the routes' connectors) and the difference, in the accounts' currency.
      </p>
      <form class="toolbar" onSubmit={submit} aria-label="Margin report" noValidate>
        <TextField
          label="From date"
          type="date"
          value={draft.from}
          max={today}
          onValue={(from) => setDraft({ ...draft, from })}
          error={errorAt('from')}
        />
        <TextField
          label="To date"
          type="date"
          value={draft.to}
          onValue={(to) => setDraft({ ...draft, to })}
          hint="Inclusive."
          error={errorAt('to')}
        />
        <SelectField
          label="Group by"
          value={draft.groupBy}
          onValue={(groupBy) => setDraft({ ...draft, groupBy })}
          options={GROUPS}
        />
        <button type="submit">Show margins</button>
      </form>
      <AsyncState state={report} what="the margin report" />
      {shown && (
        <ListTable
          label="Margins"
          columns={[
            group.label,
            'Currency',
            { label: 'Parts', class: 'num' },
            { label: 'Sell', class: 'num' },
            { label: 'Buy', class: 'num' },
            { label: 'Margin', class: 'num' },
            { label: 'Unpriced parts', class: 'num' },
          ]}
          rows={shown.items}
          empty="No message was sent over these days."
          row={(item) => (
            <tr key={`${item.key} ${item.currency}`} data-testid="margin-row">
              <th scope="row">
                <KeyCell groupBy={shown.groupBy} value={item.key} />
              </th>
              <td>{item.currency}</td>
              <td class="num">{formatNumber(item.parts)}</td>
              <td class="num">{formatAmount(item.sell, item.currency)}</td>
              <td class="num">{formatAmount(item.buy, item.currency)}</td>
              <td class="num" data-testid="margin-value">
                {formatAmount(item.margin, item.currency)}
              </td>
              <td class="num">{formatNumber(item.unpriced)}</td>
            </tr>
          )}
          foot={
            shown.items.length === 0
              ? undefined
              : totalsOf(shown.items).map((t) => (
                  <tr key={t.currency} data-testid="margin-total">
                    <th scope="row">Total {t.currency}</th>
                    <td>{t.currency}</td>
                    <td class="num">{formatNumber(t.parts)}</td>
                    <td class="num">{formatAmount(t.sell, t.currency)}</td>
                    <td class="num">{formatAmount(t.buy, t.currency)}</td>
                    <td class="num">{formatAmount(t.margin, t.currency)}</td>
                    <td class="num">{formatNumber(t.unpriced)}</td>
                  </tr>
                ))
          }
        />
      )}
      {shown && shown.items.some((i) => i.unpriced > 0) && (
        <p class="hint">Unpriced parts went by a connector without a buy price: their buy price counts as 0.</p>
      )}
    </Page>
  );
}
