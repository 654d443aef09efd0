import { codeWord, t } from '../../shared/i18n/index.js';
import { BarChart } from '../../shared/chart.js';
import { formatBalance, utcDay, formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, Page, useAsync } from '../../shared/ui.js';
import { system } from '../session.js';
import type { Statistics } from '../types.js';

/** Balance, today's messages by status and channel, and the last 30 days. */
export function Dashboard() {
  const balance = useAsync((signal) => system.get('/api/v1/balance', { signal }), []);
  const today = useAsync(
    (signal) =>
      system.get('/api/v1/statistics', { signal, query: { from: utcDay(new Date()), groupBy: 'channelType' } }),
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
          <p class="hint">{t('dashboard.sinceMidnight')}</p>
        </div>
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
                <a href={`/app/messages?status=${encodeURIComponent(status)}&time_from=${utcDay(new Date())}`}>
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
          title={t('dashboard.chart')}
          points={days}
          barLabel={t('col.messages')}
          lineLabel={t('dashboard.delivered')}
        />
      )}
    </Page>
  );
}

/** One point per UTC day of the range, zero where there were no messages. */
export function fillDays(stats: Statistics): { label: string; value: number; line: number }[] {
  const byDay = new Map(stats.items.map((g) => [g.key.slice(0, 10), g]));
  const points = [];
  const end = Date.parse(stats.to);
  for (let t = Date.parse(`${stats.from.slice(0, 10)}T00:00:00Z`); t < end; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const group = byDay.get(day);
    points.push({ label: day.slice(5), value: group?.messages ?? 0, line: group?.statuses.delivered ?? 0 });
  }
  return points;
}
