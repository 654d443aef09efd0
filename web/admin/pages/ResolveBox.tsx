import { codeOptions, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { ApiError, errorWords } from '../../shared/api.js';
import { type Channel, CHANNELS, formatAmount } from '../../shared/format.js';
import { ListTable, NoticeLine, SelectField, TextField, useAction, useNotice } from '../../shared/ui.js';
import { TRAFFIC_TYPES } from '../routeForm.js';
import { admin } from '../session.js';
import type { Resolved } from '../types.js';

type TrafficType = (typeof TRAFFIC_TYPES)[number];

/** Which of the box's fields an API refusal names (`Invalid destination: ...`, `Account 5 not found`). */
function resolveFieldOf(error: ApiError): string | undefined {
  if (error.status === 404 && /^Account \d+ not found/.test(error.message)) return 'accountId';
  return /^(?:Invalid|Missing) (destination|channelType|accountId|senderName|trafficType)\b/.exec(error.message)?.[1];
}

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);

/**
 * "Which route would a message take now" (GET /admin/v1/routes/resolve): its route, connector, operator and the
 * buy and sell price and margin per part, then the route's connectors in the order they would be tried.
 */
export function ResolveBox() {
  const notice = useNotice();
  const action = useAction(notice);
  const [query, setQuery] = useState({
    destination: '',
    channelType: 'SMS' as Channel,
    accountId: '',
    senderName: '',
    trafficType: '' as TrafficType | '',
  });
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({});
  const [answer, setAnswer] = useState<Resolved | undefined>(undefined);
  const set =
    <K extends keyof typeof query>(name: K) =>
    (value: (typeof query)[K]) => {
      setQuery({ ...query, [name]: value });
      setErrors((e) => ({ ...e, [name]: '' }));
    };

  const submit = (event: Event) => {
    event.preventDefault();
    setErrors({});
    setAnswer(undefined);
    void action.run(async () => {
      try {
        const resolved = await admin.get('/admin/v1/routes/resolve', {
          query: {
            destination: query.destination.trim(),
            channelType: query.channelType,
            accountId: query.accountId.trim() || undefined,
            senderName: query.senderName.trim() || undefined,
            trafficType: query.trafficType || undefined,
          },
        });
        setAnswer(resolved);
        return resolved.connectorId
          ? t('resolve.found', { id: resolved.routeId, connector: resolved.connectorId })
          : t('resolve.noneUp', { id: resolved.routeId });
      } catch (error) {
        const field = error instanceof ApiError ? resolveFieldOf(error) : undefined;
        if (field && error instanceof ApiError) setErrors({ [field]: errorWords(error) });
        throw error;
      }
    });
  };

  return (
    <section class="card" aria-labelledby="resolve-title">
      <h2 id="resolve-title">{t('resolve.title')}</h2>
      <form onSubmit={submit} aria-label={t('resolve.form')} noValidate>
        <div class="grid">
          <TextField
            label={t('message.destination')}
            value={query.destination}
            onValue={set('destination')}
            required
            inputMode="tel"
            maxLength={64}
            error={errors.destination}
          />
          <SelectField
            label={t('col.channel')}
            value={query.channelType}
            onValue={set('channelType')}
            options={codeOptions('channel', CHANNELS)}
            error={errors.channelType}
          />
          <TextField
            label={t('tariffs.accountId')}
            type="number"
            min="1"
            value={query.accountId}
            onValue={set('accountId')}
            hint={t('resolve.accountHint')}
            error={errors.accountId}
          />
          <TextField
            label={t('col.senderName')}
            value={query.senderName}
            onValue={set('senderName')}
            maxLength={64}
            hint={t('ui.optional')}
            error={errors.senderName}
          />
          <SelectField
            label={t('dispatch.trafficType')}
            value={query.trafficType}
            onValue={set('trafficType')}
            options={codeOptions('traffic', TRAFFIC_TYPES, 'resolve.channelDefault')}
            error={errors.trafficType}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('resolve.button')}
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />
      {answer && (
        <>
          <dl class="facts" data-testid="resolved">
            <dt>{t('margins.route')}</dt>
            <dd data-testid="resolved-route">{answer.routeId}</dd>
            <dt>{t('col.connector')}</dt>
            <dd data-testid="resolved-connector">{answer.connectorId ?? t('resolve.noneIsUp')}</dd>
            <dt>{t('guard.operator')}</dt>
            <dd>{answer.operator ?? '—'}</dd>
            <dt>{t('resolve.buy')}</dt>
            <dd>{formatAmount(answer.buyPrice, answer.currency)}</dd>
            <dt>{t('resolve.sell')}</dt>
            <dd>{formatAmount(answer.sellPrice, answer.currency)}</dd>
            <dt>{t('resolve.margin')}</dt>
            <dd data-testid="resolved-margin">{formatAmount(answer.margin, answer.currency)}</dd>
          </dl>
          <ListTable
            label={t('resolve.connectors')}
            columns={[
              ...texts('resolve.order', 'col.connector', 'col.state'),
              { label: t('resolve.rate'), class: 'num' },
              t('resolve.buyPrice'),
            ]}
            rows={answer.connectors}
            row={(c, i) => (
              <tr key={c.connectorId}>
                <td>{i + 1}</td>
                <th scope="row">{c.connectorId}</th>
                <td>
                  <span class={`badge conn-${c.up ? 'up' : 'down'}`}>{t(c.up ? 'resolve.up' : 'resolve.down')}</span>
                </td>
                <td class="num">{percent(c.deliveryRate)}</td>
                <td>{c.buyPrice ? formatAmount(c.buyPrice.amount, c.buyPrice.currency) : '—'}</td>
              </tr>
            )}
          />
        </>
      )}
    </section>
  );
}
