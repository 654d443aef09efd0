import { t } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { ApiError, errorWords } from '../../shared/api.js';
import { formatAmount, utcDay, formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, Page, SelectField, TextField, useAsync } from '../../shared/ui.js';
import { AccountLink } from '../accountNames.js';
import { admin } from '../session.js';
import type { MarginItem } from '../types.js';

const DAY_MS = 86_400_000;
/** The longest report the API gives (its MARGIN_MAX_DAYS). */
const MAX_DAYS = 31;
const groups = () =>
  [
    { value: 'account', label: t('col.account') },
    { value: 'route', label: t('margins.route') },
    { value: 'connector', label: t('col.connector') },
    { value: 'day', label: t('margins.day') },
  ] as const;
type Group = ReturnType<typeof groups>[number]['value'];

interface Query {
  readonly from: string;
  readonly to: string;
  readonly groupBy: Group;
}

/** The day after a `YYYY-MM-DD` day: the report's `to` is exclusive, the page's "To date" inclusive. */
const nextDay = (day: string) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));

/** What is wrong with the dates before they are sent, by field, or undefined. */
function datesFault(q: Query): { field: 'from' | 'to'; text: string } | undefined {
  if (!q.from) return { field: 'from', text: t('margins.giveFirst') };
  if (!q.to) return { field: 'to', text: t('margins.giveLast') };
  const days = (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS + 1;
  if (days < 1) return { field: 'to', text: t('margins.beforeFirst') };
  if (days > MAX_DAYS) return { field: 'to', text: t('margins.atMost', { max: MAX_DAYS }) };
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
  if (groupBy === 'account') return <AccountLink id={Number(value)} />;
  if (groupBy === 'route' && value === 'none') return <>{t('margins.noRoute')}</>;
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
        ? errorWords(report.error)
        : undefined;

  const submit = (event: Event) => {
    event.preventDefault();
    const wrong = datesFault(draft);
    setFault(wrong);
    if (!wrong) setQuery({ ...draft });
  };
  const shown = report.data;
  const group = groups().find((g) => g.value === (shown?.groupBy ?? query.groupBy))!;

  return (
    <Page title={t('admin.nav.margins')}>
      <p class="lead">{t('margins.lead')}</p>
      <form class="toolbar" onSubmit={submit} aria-label={t('margins.report')} noValidate>
        <TextField
          label={t('messages.fromDate')}
          type="date"
          value={draft.from}
          max={today}
          onValue={(from) => setDraft({ ...draft, from })}
          error={errorAt('from')}
        />
        <TextField
          label={t('messages.toDate')}
          type="date"
          value={draft.to}
          onValue={(to) => setDraft({ ...draft, to })}
          hint={t('margins.inclusive')}
          error={errorAt('to')}
        />
        <SelectField
          label={t('statistics.groupBy')}
          value={draft.groupBy}
          onValue={(groupBy) => setDraft({ ...draft, groupBy })}
          options={groups()}
        />
        <button type="submit">{t('margins.show')}</button>
      </form>
      <AsyncState state={report} what={t('margins.theReport')} />
      {shown && (
        <ListTable
          label={t('admin.nav.margins')}
          columns={[
            group.label,
            t('accounts.currency'),
            ...(['col.parts', 'margins.sell', 'margins.buy', 'margins.margin', 'margins.unpriced'] as const).map(
              (key) => ({ label: t(key), class: 'num' }),
            ),
          ]}
          rows={shown.items}
          empty={t('margins.none')}
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
              : totalsOf(shown.items).map((total) => (
                  <tr key={total.currency} data-testid="margin-total">
                    <th scope="row">{t('margins.total', { currency: total.currency })}</th>
                    <td>{total.currency}</td>
                    <td class="num">{formatNumber(total.parts)}</td>
                    <td class="num">{formatAmount(total.sell, total.currency)}</td>
                    <td class="num">{formatAmount(total.buy, total.currency)}</td>
                    <td class="num">{formatAmount(total.margin, total.currency)}</td>
                    <td class="num">{formatNumber(total.unpriced)}</td>
                  </tr>
                ))
          }
        />
      )}
      {shown && shown.items.some((i) => i.unpriced > 0) && <p class="hint">{t('margins.unpricedHint')}</p>}
    </Page>
  );
}
