import { BarChart } from '../../shared/chart.js';
import { formatBalance, utcDay } from '../../shared/format.js';
import { Link } from '../../shared/router.js';
import { AsyncState, Page, TableWrap, useAsync } from '../../shared/ui.js';
import { system } from '../session.js';
import type { Statistics } from '../types.js';

/** Balance, today's messages by status and channel, and the last 30 days. */
export function Dashboard() {
  const balance = useAsync((signal) => system<Record<string, number>>('GET', '/api/v1/balance', { signal }), []);
  const today = useAsync(
    (signal) => system<Statistics>('GET', '/api/v1/statistics', { signal, query: { from: utcDay(new Date()), groupBy: 'channelType' } }),
    [],
  );
  const month = useAsync((signal) => {
    const from = new Date(Date.now() - 29 * 86_400_000);
    return system<Statistics>('GET', '/api/v1/statistics', { signal, query: { from: utcDay(from), groupBy: 'day' } });
  }, []);

  const statuses = today.data ? Object.entries(today.data.total.statuses).sort((a, b) => b[1] - a[1]) : [];
  const days = month.data ? fillDays(month.data) : [];

  return (
    <Page title="Dashboard">
      <div class="cards">
        <div class="card stat">
          <h2>Balance</h2>
          <p class="big" data-testid="balance">
            {formatBalance(balance.data)}
          </p>
          <AsyncState state={balance} what="the balance" />
        </div>
        <div class="card stat">
          <h2>Messages today</h2>
          <p class="big" data-testid="today-total">
            {today.data ? today.data.total.messages.toLocaleString() : '—'}
          </p>
          <p class="hint">Since midnight UTC.</p>
        </div>
      </div>

      <h2>Today by status</h2>
      <AsyncState state={today} what="today's statistics" />
      {today.data && (
        <TableWrap label="Today's messages by status">
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col" class="num">Messages</th>
            </tr>
          </thead>
          <tbody>
            {statuses.length === 0 && (
              <tr>
                <td colSpan={2}>No messages yet today.</td>
              </tr>
            )}
            {statuses.map(([status, count]) => (
              <tr key={status}>
                <th scope="row">
                  <Link href={`/app/messages?status=${encodeURIComponent(status)}&time_from=${utcDay(new Date())}`}>{status}</Link>
                </th>
                <td class="num">{count.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      )}

      <h2>Today by channel</h2>
      {today.data && (
        <TableWrap label="Today's messages by channel">
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col" class="num">Messages</th>
              <th scope="col" class="num">Parts</th>
              <th scope="col">Statuses</th>
            </tr>
          </thead>
          <tbody>
            {today.data.items.length === 0 && (
              <tr>
                <td colSpan={4}>No messages yet today.</td>
              </tr>
            )}
            {today.data.items.map((group) => (
              <tr key={group.key}>
                <th scope="row">{group.key}</th>
                <td class="num">{group.messages.toLocaleString()}</td>
                <td class="num">{group.parts.toLocaleString()}</td>
                <td>
                  {Object.entries(group.statuses)
                    .map(([s, n]) => `${s} ${n.toLocaleString()}`)
                    .join(', ')}
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      )}

      <h2>Last 30 days</h2>
      <AsyncState state={month} what="the last 30 days" />
      {month.data && <BarChart title="Messages per day, last 30 days" points={days} barLabel="Messages" lineLabel="Delivered" />}
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
    points.push({ label: day.slice(5), value: group?.messages ?? 0, line: (group?.statuses.delivered ?? 0) + (group?.statuses.read ?? 0) + (group?.statuses.unread ?? 0) });
  }
  return points;
}
