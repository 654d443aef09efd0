import { codeWord, t } from '../../shared/i18n/index.js';
import { formatNumber } from '../../shared/format.js';
import { AsyncState, ListTable, useAsync } from '../../shared/ui.js';
import { system } from '../session.js';
import type { VerificationStatistics as Figures } from '../types.js';

type Conversion = Figures['total'];

/** A conversion rate as "50.0 %" ("50,0 %" in Russian), one decimal. */
const rate = (c: Conversion) =>
  c.conversionRate === null
    ? '—'
    : `${formatNumber(c.conversionRate * 100, { minimumFractionDigits: 1, maximumFractionDigits: 1 })} %`;
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
const columns = () =>
  (['verification.sends', 'verification.confirmations', 'verification.conversion'] as const).map((key) => ({
    label: t(key),
    class: 'num',
  }));

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
      <h2 id="verification-statistics">{t('verification.title')}</h2>
      <p class="hint">{t('verification.hint')}</p>
      <AsyncState state={stats} what={t('verification.theStatistics')} />
      {data && (
        <>
          <ListTable
            label={t('verification.byVerifier')}
            columns={[t('verification.verifier'), t('verification.gatewayId'), ...columns()]}
            rows={data.verifiers}
            empty={t('verification.noVerifiers')}
            row={(v) => (
              <tr key={v.gatewayId}>
                <th scope="row">{v.name ?? t('verification.deleted')}</th>
                <td>
                  <code>{v.gatewayId}</code>
                </td>
                {cells(v)}
              </tr>
            )}
            foot={
              <tr>
                <th scope="row" colSpan={2}>
                  {t('statistics.totalRow')}
                </th>
                {cells(data.total)}
              </tr>
            }
          />
          <ListTable
            label={t('verification.byChannel')}
            columns={[t('col.channel'), ...columns()]}
            rows={data.channels}
            empty={t('verification.noCodes')}
            row={(c) => (
              <tr key={c.channelType}>
                <th scope="row">{codeWord('channel', c.channelType)}</th>
                {cells(c)}
              </tr>
            )}
          />
        </>
      )}
    </section>
  );
}
