import { codeOptions, codeWord, t } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { BarChart } from '../../shared/chart.js';
import { downloadCsv } from '../../shared/csv.js';
import { CHANNELS, formatBalance, formatUtcDay, MESSAGE_STATUSES, utcDay, formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, Page, SelectField, TextField, useAsync } from '../../shared/ui.js';
import { system } from '../session.js';
import type { StatisticsGroup } from '../types.js';
import { fillDays } from './Dashboard.js';
import { VerificationStatistics } from './VerificationStatistics.js';

const groupBy = () => [
  { value: 'day', label: t('statistics.day') },
  { value: 'channelType', label: t('col.channel') },
  { value: 'senderName', label: t('col.senderName') },
  { value: 'status', label: t('col.status') },
  { value: 'tag', label: t('statistics.tag') },
  { value: 'cascadeStep', label: t('statistics.cascadeStep') },
  { value: 'trafficType', label: t('dispatch.trafficType') },
];

/** The words of a grouping ("Channel" for `channelType`). */
const groupLabel = (value: string): string => groupBy().find((g) => g.value === value)?.label ?? value;

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
    <Page title={t('app.nav.statistics')}>
      <form
        class="card filters"
        aria-label={t('statistics.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(form);
        }}
      >
        <div class="grid">
          <TextField label={t('messages.fromDate')} type="date" value={form.from} onValue={set('from')} required />
          <TextField
            label={t('messages.toDate')}
            type="date"
            value={form.to}
            onValue={set('to')}
            required
            hint={t('statistics.toHint')}
          />
          <SelectField
            label={t('statistics.groupBy')}
            value={form.groupBy}
            onValue={set('groupBy')}
            options={groupBy()}
          />
          <SelectField
            label={t('col.channel')}
            value={form.channelType}
            onValue={set('channelType')}
            options={codeOptions('channel', CHANNELS, 'messages.anyChannel')}
          />
          <TextField label={t('col.senderName')} value={form.senderName} onValue={set('senderName')} />
          <SelectField
            label={t('col.status')}
            value={form.status}
            onValue={set('status')}
            options={codeOptions('status', MESSAGE_STATUSES, 'messages.anyStatus')}
          />
          <TextField label={t('statistics.tag')} value={form.tag} onValue={set('tag')} />
        </div>
        <div class="actions">
          <button type="submit">{t('statistics.show')}</button>
          <button type="button" class="secondary" disabled={!data} onClick={exportCsv}>
            {t('stopList.export')}
          </button>
        </div>
      </form>
      <AsyncState state={stats} what={t('statistics.theStatistics')} />
      {data && (
        <>
          <BarChart
            title={t('statistics.chart', { by: groupLabel(data.groupBy).toLowerCase() })}
            points={points}
            barLabel={t('col.messages')}
            lineLabel={data.groupBy === 'day' ? t('dashboard.delivered') : undefined}
          />
          <p>
            {t('statistics.total', {
              messages: data.total.messages,
              parts: data.total.parts,
              cost: formatBalance(data.total.price),
            })}
          </p>
          <ListTable
            label={t('app.nav.statistics')}
            columns={[
              groupLabel(data.groupBy),
              { label: t('col.messages'), class: 'num' },
              { label: t('col.parts'), class: 'num' },
              ...statuses.map((s) => ({ label: codeWord('status', s), class: 'num' })),
              ...currencies.map((c) => ({ label: t('statistics.price', { currency: c }), class: 'num' })),
              { label: t('statistics.clicks'), class: 'num' },
              { label: t('statistics.conversions'), class: 'num' },
            ]}
            rows={data.items}
            empty={t('statistics.none')}
            row={(g) => (
              <tr key={g.key}>
                {row(g).map((cell, i) =>
                  i === 0 ? (
                    <th scope="row" key={i}>
                      {data.groupBy === 'day' ? formatUtcDay(String(cell)) : String(cell)}
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
                      {t('statistics.totalRow')}
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
