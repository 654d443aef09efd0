import { codeWord, currentLocale, t } from '../../shared/i18n/index.js';
import { BarChart } from '../../shared/chart.js';
import { formatBalance, formatNumber, localDay, utcDay } from '../../shared/format.js';
import { AsyncState, ListTable, Page, useAsync } from '../../shared/ui.js';
import { totalPriceText } from '../estimate.js';
import { system } from '../session.js';
import type { ComponentChildren } from 'preact';
import type { Statistics } from '../types.js';

/**
 * Balance, today's and this month's messages, spend and delivery rate, today's messages by status and channel, and
 * the last 30 days. "Today" and "this month" are the reader's (the browser's time zone, as every time the pages
 * show): the statistics API takes their first instant as `from`. The chart's days are the UTC days the statistics
 * rollup keeps (a chart by local days would read every message of the 30 days again).
 */
export function Dashboard() {
  const balance = useAsync((signal) => system.get('/api/v1/balance', { signal }), []);
  const now = new Date();
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const monthStart = new Date(now.getFullYear(), now.getMonth(), 1);
  const today = useAsync(
    (signal) =>
      system.get('/api/v1/statistics', {
        signal,
        query: { from: midnight.toISOString(), to: now.toISOString(), groupBy: 'channelType' },
      }),
    [],
  );
  const thisMonth = useAsync(
    (signal) =>
      system.get('/api/v1/statistics', {
        signal,
        query: { from: monthStart.toISOString(), to: now.toISOString(), groupBy: 'status' },
      }),
    [],
  );
  const month = useAsync((signal) => {
    const from = new Date(Date.now() - 29 * 86_400_000);
    return system.get('/api/v1/statistics', { signal, query: { from: utcDay(from), groupBy: 'day' } });
  }, []);

  const statuses = today.data ? Object.entries(today.data.total.statuses).sort((a, b) => b[1] - a[1]) : [];
  const days = month.data ? fillDays(month.data) : [];

  return (
    <Page title={t('app.nav.dashboard')}>
      <div class="cards">
        <div class="card stat">
          <h2>{t('dashboard.balance')}</h2>
          <p class="big" data-testid="balance">
            {formatBalance(balance.data)}
          </p>
          <AsyncState state={balance} what={t('dashboard.theBalance')} />
        </div>
        <div class="card stat">
          <h2>{t('dashboard.messagesToday')}</h2>
          <p class="big" data-testid="today-total">
            {today.data ? formatNumber(today.data.total.messages) : '—'}
          </p>
          <p class="hint">{t('spend.sinceMidnight')}</p>
        </div>
        <SpendCard title={t('spend.spentToday')} stats={today.data} testId="today" before={undefined} />
        <SpendCard
          title={t('spend.spentMonth')}
          stats={thisMonth.data}
          testId="month"
          before={
            thisMonth.data?.total &&
            t('spend.monthMessages', {
              count: thisMonth.data.total.messages,
              since: monthStart.toLocaleDateString(currentLocale(), { day: 'numeric', month: 'long' }),
            })
          }
        >
          <AsyncState state={thisMonth} what={t('spend.theMonth')} />
        </SpendCard>
      </div>

      <h2>{t('dashboard.byStatus')}</h2>
      <AsyncState state={today} what={t('dashboard.todaysStatistics')} />
      {today.data && (
        <ListTable
          label={t('dashboard.byStatusTable')}
          columns={[t('col.status'), { label: t('col.messages'), class: 'num' }]}
          rows={statuses}
          empty={t('dashboard.noneToday')}
          row={([status, count]) => (
            <tr key={status}>
              <th scope="row">
                <a href={`/app/messages?status=${encodeURIComponent(status)}&time_from=${localDay(new Date())}`}>
                  {codeWord('status', status)}
                </a>
              </th>
              <td class="num">{formatNumber(count)}</td>
            </tr>
          )}
        />
      )}

      <h2>{t('dashboard.byChannel')}</h2>
      {today.data && (
        <ListTable
          label={t('dashboard.byChannelTable')}
          columns={[
            t('col.channel'),
            { label: t('col.messages'), class: 'num' },
            { label: t('col.parts'), class: 'num' },
            t('col.statuses'),
          ]}
          rows={today.data.items}
          empty={t('dashboard.noneToday')}
          row={(group) => (
            <tr key={group.key}>
              <th scope="row">{codeWord('channel', group.key)}</th>
              <td class="num">{formatNumber(group.messages)}</td>
              <td class="num">{formatNumber(group.parts)}</td>
              <td>
                {Object.entries(group.statuses)
                  .map(([s, n]) => `${codeWord('status', s)} ${formatNumber(n)}`)
                  .join(', ')}
              </td>
            </tr>
          )}
        />
      )}

      <h2>{t('dashboard.last30')}</h2>
      <AsyncState state={month} what={t('dashboard.theLast30')} />
      {month.data && (
        <BarChart
          title={t('spend.chartUtc')}
          points={days}
          barLabel={t('col.messages')}
          lineLabel={t('dashboard.delivered')}
        />
      )}
    </Page>
  );
}

/**
 * A card of the money spent over a period (`spent-<testId>`) and its delivery rate (`rate-<testId>`), after `before`
 * (a line about the period's messages).
 */
function SpendCard(props: {
  title: string;
  stats: Statistics | undefined;
  testId: string;
  before: string | undefined;
  children?: ComponentChildren;
}) {
  const { title, stats, testId, before, children } = props;
  return (
    <div class="card stat">
      <h2>{title}</h2>
      <p class="big" data-testid={`spent-${testId}`}>
        {stats ? totalPriceText(stats.total.price) : '—'}
      </p>
      <p class="hint" data-testid={`rate-${testId}`}>
        {stats ? [before, deliveryRate(stats.total.statuses)].filter(Boolean).join(' ') : ''}
      </p>
      {children}
    </div>
  );
}

/**
 * The share of delivered messages among those with a delivery outcome (delivered or undelivered): messages still
 * under way, and those never sent (unsent: stopped, expired, refused on the way; not charged), do not count.
 */
export function deliveryRate(statuses: Readonly<Record<string, number>>): string {
  const delivered = statuses.delivered ?? 0;
  const outcomes = delivered + (statuses.undelivered ?? 0);
  if (outcomes === 0) return t('spend.noRate');
  const rate = (delivered / outcomes).toLocaleString(currentLocale(), { style: 'percent', maximumFractionDigits: 1 });
  return t('spend.rate', { rate, delivered, outcomes });
}

/** One point per UTC day of the range, zero where there were no messages; labelled in the reader's locale. */
export function fillDays(stats: Statistics): { label: string; value: number; line: number }[] {
  const byDay = new Map(stats.items.map((g) => [g.key.slice(0, 10), g]));
  const points = [];
  const end = Date.parse(stats.to);
  for (let t = Date.parse(`${stats.from.slice(0, 10)}T00:00:00Z`); t < end; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const group = byDay.get(day);
    const label = new Date(t).toLocaleDateString(currentLocale(), {
      day: 'numeric',
      month: 'numeric',
      timeZone: 'UTC',
    });
    points.push({ label, value: group?.messages ?? 0, line: group?.statuses.delivered ?? 0 });
  }
  return points;
}
