import { ExplainedError } from '../../shared/explained.js';
import { explainMessageError } from '../../shared/errorWords.js';
import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { contentText, formatMoney, formatTime, localDay } from '../../shared/format.js';
import {
  AsyncState,
  ListTable,
  NoticeLine,
  Page,
  useAction,
  useAsync,
  useLiveReload,
  useNotice,
  Uuid,
} from '../../shared/ui.js';
import { conditionText } from '../cascades.js';
import { system, traffic } from '../session.js';
import type { Message } from '../types.js';

/**
 * One message: its fields, price and parts, status history, its cascade's chain when it is a step of one, and every
 * callback delivery with its attempts.
 */
/** The statuses a message leaves by itself (a receipt, the sender). */
const LIVE_STATUSES: ReadonlySet<string> = new Set(['sending', 'sent']);

export function MessagePage({ uuid }: { uuid: string }) {
  const message = useAsync((signal) => traffic.get('/api/v1/message/{uuid}', { params: { uuid }, signal }), [uuid]);
  const notice = useNotice();
  const action = useAction(notice);
  const m = message.data;
  // Read again by itself until the status is final: the page does not stay `sent` until Refresh.
  useLiveReload(message, m !== undefined && LIVE_STATUSES.has(m.status));

  const stop = () =>
    action.run(async () => {
      const result = await traffic.post('/api/v1/message/stop', { body: { uuids: [uuid] } });
      message.reload();
      const code = result.items[0]?.code;
      return code === 200 ? t('message.stopped') : code === 202 ? t('message.stopLeased') : t('message.alreadySent');
    });

  return (
    <Page
      title={t('message.title', { id: uuid })}
      actions={
        <div class="actions">
          <a href="/app/messages">{t('message.back')}</a>
          <button type="button" class="secondary" onClick={() => message.reload()}>
            {t('ui.refresh')}
          </button>
        </div>
      }
    >
      <AsyncState state={message} what={t('message.theMessage')} />
      <NoticeLine notice={notice.notice} />
      {m && (
        <>
          <dl class="card facts">
            <dt>{t('col.status')}</dt>
            <dd>
              <span class={`badge status-${m.status}`} data-testid="message-status">
                {codeWord('status', m.status)}
              </span>
              {m.readStatus && (
                <span class="hint"> ({t('message.readStatus', { status: codeWord('status', m.readStatus) })})</span>
              )}
              {m.status === 'sending' && (
                <button type="button" class="secondary small" disabled={action.busy} onClick={() => void stop()}>
                  {t('message.stop')}
                </button>
              )}
            </dd>
            {m.errorCode !== null && (
              <>
                <dt>{t('message.why')}</dt>
                <dd>
                  <ExplainedError explained={explainMessageError(m.errorCode)} testId="message-error" />{' '}
                  <a href={sameErrorLink(m.errorCode, m.createdTime)}>{t('errors.sameError')}</a>
                </dd>
              </>
            )}
            <dt>UUID</dt>
            <dd class="mono">{m.messageUuid}</dd>
            <dt>{t('col.channel')}</dt>
            <dd>
              {codeWord('channel', m.channelType)} (
              {t(m.direction === 'inbound' ? 'message.inbound' : 'message.outbound')})
            </dd>
            <dt>{t('col.senderName')}</dt>
            <dd>{m.senderName}</dd>
            <dt>{t('message.destination')}</dt>
            <dd>
              {m.destination}
              {m.country ? ` (${m.country})` : ''}
            </dd>
            <dt>{t('message.text')}</dt>
            <dd class="pre">{contentText(m.content)}</dd>
            <dt>{t('message.price')}</dt>
            <dd data-testid="message-price">
              {formatMoney(m.price.totalPrice, m.price.currency)} (
              {t(m.price.final ? 'message.final' : 'message.reserved')})
            </dd>
            <dt>{t('col.parts')}</dt>
            <dd data-testid="message-parts">
              {t('message.partsInvoiced', { parts: m.totalParts, invoiced: m.price.invoicedParts })}
            </dd>
            <dt>{t('message.created')}</dt>
            <dd>{formatTime(m.createdTime)}</dd>
            <dt>{t('message.planned')}</dt>
            <dd>{formatTime(m.plannedSendTime)}</dd>
            <dt>{t('message.sent')}</dt>
            <dd>{formatTime(m.sentTime)}</dd>
            <dt>{t('message.tags')}</dt>
            <dd>{m.tags.length ? m.tags.join(', ') : '—'}</dd>
            {m.cascadeMessageUuid && (
              <>
                <dt>{t('message.cascade')}</dt>
                <dd>
                  {t('message.step', { step: m.cascadeStep ?? '' })}
                  {m.cascadeMessageUuid !== m.messageUuid && (
                    <>
                      {' '}
                      ({t('message.firstStep')}{' '}
                      <a href={`/app/messages/${m.cascadeMessageUuid}`} class="mono">
                        <Uuid value={m.cascadeMessageUuid} />
                      </a>
                      )
                    </>
                  )}
                </dd>
              </>
            )}
            {m.dispatchId && (
              <>
                <dt>{t('message.dispatch')}</dt>
                <dd>
                  <a href={`/app/dispatches/${m.dispatchId}`} class="mono">
                    {m.dispatchId}
                  </a>
                </dd>
              </>
            )}
            <dt>{t('message.callbackUrl')}</dt>
            <dd class="mono">
              {m.callbackUrl ? `${m.callbackUrl} (${(m.callbackEvents ?? ['delivered']).join(', ')})` : '—'}
            </dd>
          </dl>

          <h2>{t('message.history')}</h2>
          <ListTable
            label={t('message.history')}
            columns={texts('col.time', 'col.status', 'col.errorCode', 'col.detail')}
            rows={m.statusHistory}
            empty={t('message.noHistory')}
            row={(entry, i) => (
              <tr key={i}>
                <td>{formatTime(entry.at)}</td>
                <td>{codeWord('status', entry.status)}</td>
                <td>
                  {entry.errorCode === null || entry.errorCode === undefined ? (
                    '—'
                  ) : (
                    <ExplainedError explained={explainMessageError(entry.errorCode)} />
                  )}
                </td>
                <td>
                  {[
                    entry.detail,
                    entry.connector && t('message.via', { connector: entry.connector }),
                    entry.retryAt && t('message.retryAt', { time: formatTime(entry.retryAt) }),
                  ]
                    .filter(Boolean)
                    .join('; ') || '—'}
                </td>
              </tr>
            )}
          />

          {/* Each load of the message (Refresh included) loads its cascade and callbacks again. */}
          {m.cascadeMessageUuid && <Cascade uuid={m.messageUuid} loaded={m} />}
          <Callbacks uuid={m.messageUuid} loaded={m} />
        </>
      )}
    </Page>
  );
}

/** The cascade a message is a step of: its state and each step, created or not, with why it moved on. */
function Cascade({ uuid, loaded }: { uuid: string; loaded: Message }) {
  const cascade = useAsync(
    (signal) => traffic.get('/api/v1/message/cascade/{uuid}', { params: { uuid }, signal }),
    [uuid, loaded],
  );
  const c = cascade.data;
  return (
    <>
      <h2>{t('message.cascade')}</h2>
      <AsyncState state={cascade} what={t('message.theCascade')} />
      {c && (
        <>
          <p>
            <span class={`badge cascade-${c.state}`} data-testid="cascade-state">
              {codeWord('cascadeState', c.state)}
            </span>{' '}
            {t('message.cascadeAt', { step: c.currentStep, steps: c.stepCount, time: formatTime(c.createdTime) })}
            {c.endedTime ? t('message.cascadeEnded', { time: formatTime(c.endedTime) }) : ''}.{' '}
            <a href={`/app/messages?cascade_message_uuid=${c.cascadeMessageUuid}`}>{t('message.itsMessages')}</a>
          </p>
          <ListTable
            label={t('message.cascadeSteps')}
            columns={texts(
              'col.step',
              'col.channel',
              'col.senderName',
              'col.nextStep',
              'col.message',
              'col.status',
              'col.movedOn',
            )}
            rows={c.steps}
            row={(s) => (
              <tr key={s.step} data-testid="cascade-step" aria-current={s.message?.messageUuid === uuid || undefined}>
                <td>{s.step}</td>
                <td>{codeWord('channel', s.channelType)}</td>
                <td>{s.senderName}</td>
                <td>{conditionText(s.condition)}</td>
                <td>
                  {/* In full: the steps' ids are time-ordered (UUIDv7) and share their first characters. */}
                  {!s.message ? (
                    t('message.notCreated')
                  ) : s.message.messageUuid === uuid ? (
                    t('message.thisMessage')
                  ) : (
                    <a
                      href={`/app/messages/${s.message.messageUuid}`}
                      class="mono"
                      aria-label={t('message.ofStep', { step: s.step })}
                    >
                      {s.message.messageUuid}
                    </a>
                  )}
                </td>
                <td>
                  {s.message ? (
                    <>
                      <span class={`badge status-${s.message.status}`}>{codeWord('status', s.message.status)}</span>
                      {s.message.readStatus && <span class="hint"> ({codeWord('status', s.message.readStatus)})</span>}
                    </>
                  ) : (
                    '—'
                  )}
                </td>
                <td>{s.movedOn ? codeWord('status', s.movedOn) : '—'}</td>
              </tr>
            )}
          />
        </>
      )}
    </>
  );
}

function Callbacks({ uuid, loaded }: { uuid: string; loaded: Message }) {
  const notice = useNotice();
  const action = useAction(notice);
  const deliveries = useAsync(
    async (signal) => {
      const list = await system.get('/api/v1/callbacks', { signal, query: { message_uuid: uuid, per_page: 50 } });
      return Promise.all(list.items.map((d) => system.get('/api/v1/callbacks/{id}', { params: { id: d.id }, signal })));
    },
    [uuid, loaded],
  );

  const replay = (id: string) =>
    action.run(async () => {
      const result = await system.post('/api/v1/callbacks/replay', { body: { ids: [id] } });
      deliveries.reload();
      return result.items[0]?.code === 200 ? t('message.replayed') : t('message.notReplayed');
    });

  return (
    <>
      <h2>{t('message.callbacks')}</h2>
      <AsyncState state={deliveries} what={t('message.theCallbacks')} />
      <NoticeLine notice={notice.notice} />
      {deliveries.data && deliveries.data.length === 0 && <p>{t('message.noCallbacks')}</p>}
      {deliveries.data?.map((d) => {
        return (
          <article class="card delivery" key={d.id} aria-labelledby={`delivery-${d.id}`}>
            <h3 id={`delivery-${d.id}`}>
              {t('message.delivery')} <Uuid value={d.id} />{' '}
              <span class={`badge delivery-${d.state}`}>{codeWord('callbackState', d.state)}</span>
            </h3>
            <p class="mono clip">{d.url}</p>
            <p class="hint">
              {t('message.events', { count: d.events, time: formatTime(d.createdTime) })}
              {d.nextAttemptTime ? t('message.nextAttempt', { time: formatTime(d.nextAttemptTime) }) : ''}
            </p>
            <ListTable
              label={t('message.attempts', { id: d.id })}
              columns={[t('col.time'), t('col.httpStatus'), { label: t('col.latency'), class: 'num' }, t('col.error')]}
              rows={d.attemptsLog}
              empty={t('message.notAttempted')}
              row={(a, i) => (
                <tr key={i}>
                  <td>{formatTime(a.time)}</td>
                  <td>{a.httpStatus ?? '—'}</td>
                  <td class="num">{t('message.ms', { ms: a.latencyMs })}</td>
                  <td>{a.error ?? '—'}</td>
                </tr>
              )}
            />
            {/* Only a failed delivery can be replayed (the API answers 409 for the others). */}
            {d.state === 'failed' && (
              <div class="actions">
                <button type="button" disabled={action.busy} onClick={() => void replay(d.id)}>
                  {t('message.replay')}
                </button>
              </div>
            )}
          </article>
        );
      })}
    </>
  );
}

/**
 * The list of the account's messages with the same error code: over the 31 days to today (the most one error code
 * search reads), or the 31 from this message's day when it is older.
 */
function sameErrorLink(code: number, created: string): string {
  const day = (date: Date, plus: number) =>
    localDay(new Date(date.getFullYear(), date.getMonth(), date.getDate() + plus));
  const today = new Date();
  const at = new Date(created);
  const from = day(today, -30) <= localDay(at) ? day(today, -30) : localDay(at);
  const to = from === localDay(at) ? day(at, 30) : localDay(today);
  return `/app/messages?${new URLSearchParams({ error_code: String(code), time_from: from, time_to: to }).toString()}`;
}
