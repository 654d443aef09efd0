import { useState } from 'preact/hooks';
import { BarChart } from '../../shared/chart.js';
import { downloadCsv } from '../../shared/csv.js';
import { CHANNELS, formatBalance, MESSAGE_STATUSES, utcDay, formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, Page, SelectField, TextField, useAsync } from '../../shared/ui.js';
import { system } from '../session.js';
import type { StatisticsGroup } from '../types.js';
import { fillDays } from './Dashboard.js';
import { VerificationStatistics } from './VerificationStatistics.js';

const GROUP_BY = [
  { value: 'day', label: 'Day' },
  { value: 'channelType', label: 'Channel' },
  { value: 'senderName', label: 'Sender name' },
  { value: 'status', label: 'Status' },
  { value: 'tag', label: 'Tag' },
  { value: 'cascadeStep', label: 'Cascade step' },
  { value: 'trafficType', label: 'Traffic type' },
];

interface Query {
  from: string;
  to: string;
  groupBy: string;
  channelType: string;
  senderName: string;
  status: string;
  tag: string;
}

/** The day after a YYYY-MM-DD date: `to` is exclusive in the API, inclusive in the form. */
function nextDay(day: string): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000));
}

/** Statistics: a date range, a grouping and filters; a chart, a table, and the table as CSV. */
export function Statistics() {
  const [form, setForm] = useState<Query>({
    from: utcDay(new Date(Date.now() - 29 * 86_400_000)),
    to: utcDay(new Date()),
    groupBy: 'day',
    channelType: '',
    senderName: '',
    status: '',
    tag: '',
  });
  const [query, setQuery] = useState<Query>(form);
  const stats = useAsync(
    (signal) =>
      system.get('/api/v1/statistics', {
        signal,
        query: { ...query, from: query.from, to: query.to ? nextDay(query.to) : undefined },
      }),
    [JSON.stringify(query)],
  );
  const set = (name: keyof Query) => (value: string) => setForm({ ...form, [name]: value });
  const data = stats.data;
  const statuses = data ? [...new Set([...data.items, data.total].flatMap((g) => Object.keys(g.statuses)))].sort() : [];
  const currencies = data ? [...new Set([...data.items, data.total].flatMap((g) => Object.keys(g.price)))].sort() : [];
  const points = data
    ? data.groupBy === 'day'
      ? fillDays(data)
      : data.items.map((g) => ({ label: g.key, value: g.messages }))
    : [];

  const row = (g: StatisticsGroup) => [
    g.key,
    g.messages,
    g.parts,
    ...statuses.map((s) => g.statuses[s] ?? 0),
    ...currencies.map((c) => g.price[c] ?? 0),
    g.clicks,
    g.conversions,
  ];
  const exportCsv = () => {
    if (!data) return;
    const header = [
      data.groupBy,
      'messages',
      'parts',
      ...statuses,
      ...currencies.map((c) => `price ${c}`),
      'clicks',
      'conversions',
    ];
    downloadCsv(`herald-statistics-${data.groupBy}-${query.from}-${query.to}.csv`, [
      header,
      ...data.items.map(row),
      ['total', ...row(data.total).slice(1)],
    ]);
  };

  return (
    <Page title="Statistics">
      <form
        class="card filters"
        aria-label="Statistics filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(form);
        }}
      >
        <div class="grid">
          <TextField label="From date" type="date" value={form.from} onValue={set('from')} required />
          <TextField
            label="To date"
            type="date"
            value={form.to}
            onValue={set('to')}
            required
            hint="Inclusive; days are UTC."
          />
          <SelectField label="Group by" value={form.groupBy} onValue={set('groupBy')} options={GROUP_BY} />
          <SelectField
            label="Channel"
            value={form.channelType}
            onValue={set('channelType')}
            options={[{ value: '', label: 'Any channel' }, ...CHANNELS]}
          />
          <TextField label="Sender name" value={form.senderName} onValue={set('senderName')} />
          <SelectField
            label="Status"
            value={form.status}
            onValue={set('status')}
            options={[{ value: '', label: 'Any status' }, ...MESSAGE_STATUSES]}
          />
          <TextField label="Tag" value={form.tag} onValue={set('tag')} />
        </div>
        <div class="actions">
          <button type="submit">Show statistics</button>
          <button type="button" class="secondary" disabled={!data} onClick={exportCsv}>
            Export CSV
          </button>
        </div>
      </form>
      <AsyncState state={stats} what="statistics" />
      {data && (
        <>
          <BarChart
            title={`Messages by ${GROUP_BY.find((g) => g.value === data.groupBy)?.label.toLowerCase() ?? data.groupBy}`}
            points={points}
            barLabel="Messages"
            lineLabel={data.groupBy === 'day' ? 'Delivered' : undefined}
          />
          <p>
            {formatNumber(data.total.messages)} messages, {formatNumber(data.total.parts)} parts, cost{' '}
            {formatBalance(data.total.price)}.
          </p>
          <ListTable
            label="Statistics"
            columns={[
              GROUP_BY.find((g) => g.value === data.groupBy)?.label ?? data.groupBy,
              { label: 'Messages', class: 'num' },
              { label: 'Parts', class: 'num' },
              ...statuses.map((s) => ({ label: s, class: 'num' })),
              ...currencies.map((c) => ({ label: `Price ${c}`, class: 'num' })),
              { label: 'Clicks', class: 'num' },
              { label: 'Conversions', class: 'num' },
            ]}
            rows={data.items}
            empty="No messages in this range."
            row={(g) => (
              <tr key={g.key}>
                {row(g).map((cell, i) =>
                  i === 0 ? (
                    <th scope="row" key={i}>
                      {String(cell)}
                    </th>
                  ) : (
                    <td class="num" key={i}>
                      {typeof cell === 'number' ? formatNumber(cell) : cell}
                    </td>
                  ),
                )}
              </tr>
            )}
            foot={
              <tr>
                {row(data.total).map((cell, i) =>
                  i === 0 ? (
                    <th scope="row" key={i}>
                      Total
                    </th>
                  ) : (
                    <td class="num" key={i}>
                      {typeof cell === 'number' ? formatNumber(cell) : cell}
                    </td>
                  ),
                )}
              </tr>
            }
          />
        </>
      )}
      <VerificationStatistics from={query.from} to={query.to ? nextDay(query.to) : undefined} />
    </Page>
  );
}
