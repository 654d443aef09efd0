import { formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, useAsync } from '../../shared/ui.js';
import { system } from '../session.js';
import type { VerificationStatistics as Figures } from '../types.js';

type Conversion = Figures['total'];

const rate = (c: Conversion) => (c.conversionRate === null ? '—' : `${(c.conversionRate * 100).toFixed(1)} %`);
const cells = (c: Conversion) => [
  <td class="num" key="s">
    {formatNumber(c.sends)}
  </td>,
  <td class="num" key="c">
    {formatNumber(c.confirmations)}
  </td>,
  <td class="num" key="r">
    {rate(c)}
  </td>,
];
const COLUMNS = [
  { label: 'Sends', class: 'num' },
  { label: 'Confirmations', class: 'num' },
  { label: 'Conversion', class: 'num' },
];

/**
 * The Statistics page's section on verification (GET /api/v1/verifiers/statistics) over the page's range [from, to):
 * per verifier, codes sent and confirmed; per channel, steps sent on it and codes confirmed after one of them.
 */
export function VerificationStatistics({ from, to }: { from: string; to: string | undefined }) {
  const stats = useAsync(
    (signal) => system.get('/api/v1/verifiers/statistics', { signal, query: { from, to } }),
    [from, to],
  );
  const data = stats.data;
  return (
    <section aria-labelledby="verification-statistics">
      <h2 id="verification-statistics">Verification</h2>
      <p class="hint">
        A verifier's sends are the codes it sent; a channel's sends are the workflow steps sent on it, and its
        confirmations the codes confirmed after one of them.
      </p>
      <AsyncState state={stats} what="verification statistics" />
      {data && (
        <>
          <ListTable
            label="Verification by verifier"
            columns={['Verifier', 'Gateway ID', ...COLUMNS]}
            rows={data.verifiers}
            empty="No verifiers."
            row={(v) => (
              <tr key={v.gatewayId}>
                <th scope="row">{v.name ?? '(deleted)'}</th>
                <td>
                  <code>{v.gatewayId}</code>
                </td>
                {cells(v)}
              </tr>
            )}
            foot={
              <tr>
                <th scope="row" colSpan={2}>
                  Total
                </th>
                {cells(data.total)}
              </tr>
            }
          />
          <ListTable
            label="Verification by channel"
            columns={['Channel', ...COLUMNS]}
            rows={data.channels}
            empty="No codes sent in this range."
            row={(c) => (
              <tr key={c.channelType}>
                <th scope="row">{c.channelType}</th>
                {cells(c)}
              </tr>
            )}
          />
        </>
      )}
    </section>
  );
}
