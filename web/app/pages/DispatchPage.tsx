import { currentLocale, codeWord, t } from '../../shared/i18n/index.js';
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { BarChart } from '../../shared/chart.js';
import { contentText, formatTime, formatNumber } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import {
  type Change,
  changed,
  CHANGES,
  counterLabel,
  COUNTERS,
  type Dispatch,
  isLive,
  sentPer,
} from '../dispatches.js';
import { type Condition, conditionText } from '../cascades.js';
import { traffic } from '../session.js';
import { DispatchUpload } from './DispatchUpload.js';

/** A live dispatch is read again this long after each answer (5 times as long while the tab is hidden). */
const REFRESH_MS = 2000;
/** The chart reads the dispatch's messages in one page of the list (its largest): beyond, it is left out. */
const CHART_MAX_MESSAGES = 1000;

const CHANGE_PATHS = {
  start: '/api/v1/dispatch/{id}/start',
  pause: '/api/v1/dispatch/{id}/pause',
  resume: '/api/v1/dispatch/{id}/resume',
  stop: '/api/v1/dispatch/{id}/stop',
} as const satisfies Record<Change, string>;

/**
 * One dispatch: its fields, its counters (read again every 2 s while it changes by itself), start, pause, resume
 * and stop as its status allows, the destinations upload while it is initiated, and a chart of messages sent.
 */
export function DispatchPage({ id }: { id: string }) {
  const dispatch = useAsync((signal) => traffic.get('/api/v1/dispatch/{id}', { params: { id }, signal }), [id]);
  const [updated, setUpdated] = useState<Date | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);
  const d = dispatch.data;
  const live = d !== undefined && isLive(d);

  // The next read starts 2 s after the previous answer (or failure), so a slow answer never piles requests up.
  useEffect(() => {
    if (dispatch.loading) return;
    if (d) setUpdated(new Date());
    if (!live) return;
    const timer = setTimeout(dispatch.reload, document.hidden ? REFRESH_MS * 5 : REFRESH_MS);
    return () => clearTimeout(timer);
  }, [d, dispatch.loading, dispatch.error]);

  const change = (c: Change) =>
    action.run(async () => {
      await traffic.post(CHANGE_PATHS[c], { params: { id } });
      dispatch.reload();
      return changed(c, d?.dispatchName ?? id);
    });
  const allowed = d ? CHANGES[d.status] : [];
  const finished = d ? d.messages.delivered + d.messages.undelivered + d.messages.unsent : 0;

  return (
    <Page
      title={d ? t('dispatch.title', { name: d.dispatchName }) : t('message.dispatch')}
      actions={
        <div class="actions">
          <a href="/app/dispatches">{t('dispatch.back')}</a>
          <button type="button" class="secondary" onClick={() => dispatch.reload()}>
            {t('ui.refresh')}
          </button>
        </div>
      }
    >
      {/* After the first load only failures are announced: a line every 2 s would drown a screen reader. */}
      {d ? (
        <p class={`notice ${dispatch.error ? 'error' : ''}`} role="status" aria-live="polite">
          {dispatch.error ? t('dispatch.refreshFailed', { error: errorText(dispatch.error) }) : ''}
        </p>
      ) : (
        <AsyncState state={dispatch} what={t('dispatch.theDispatch')} />
      )}
      {d && (
        <>
          <dl class="card facts">
            <dt>{t('col.status')}</dt>
            <dd>
              <span class={`badge dispatch-${d.status}`} data-testid="dispatch-status">
                {codeWord('dispatchState', d.status)}
              </span>
            </dd>
            <dt>ID</dt>
            <dd class="mono">{d.dispatchId}</dd>
            {d.cascade ? (
              <>
                <dt>{t('message.cascade')}</dt>
                <dd>
                  <CascadeSteps steps={d.cascade} />
                </dd>
              </>
            ) : (
              <>
                <dt>{t('col.channel')}</dt>
                <dd>{codeWord('channel', d.channelType)}</dd>
                <dt>{t('col.senderName')}</dt>
                <dd>{d.source}</dd>
                <dt>{t('message.text')}</dt>
                <dd class="pre" data-testid="dispatch-text">
                  {contentText(d.message)}
                </dd>
              </>
            )}
            <dt>{t('dispatches.speed')}</dt>
            <dd>
              {d.speed
                ? t(d.speed.unit === 'hour' ? 'dispatch.speedHour' : 'dispatch.speedMinute', { amount: d.speed.amount })
                : t('dispatch.asFast')}
            </dd>
            <dt>{t('dispatch.trafficType')}</dt>
            <dd>{codeWord('traffic', d.trafficType)}</dd>
            <dt>{t('message.created')}</dt>
            <dd>{formatTime(d.created)}</dd>
            {(d.localSendTime || d.localCompletionTime) && (
              <>
                <dt>{t('dispatch.window')}</dt>
                <dd>
                  {t('dispatch.windowRange', {
                    from: formatTime(d.localSendTime),
                    to: formatTime(d.localCompletionTime),
                  })}
                  {d.useLocalTime ? t('dispatch.localTime') : ''}
                </dd>
              </>
            )}
          </dl>

          <div class="actions">
            {allowed.includes('start') && (
              <button
                type="button"
                disabled={action.busy || d.messages.total === 0}
                onClick={() => void change('start')}
              >
                {t('dispatch.start')}
              </button>
            )}
            {allowed.includes('pause') && (
              <button type="button" class="secondary" disabled={action.busy} onClick={() => void change('pause')}>
                {t('dispatch.pause')}
              </button>
            )}
            {allowed.includes('resume') && (
              <button type="button" disabled={action.busy} onClick={() => void change('resume')}>
                {t('dispatch.resume')}
              </button>
            )}
            {allowed.includes('stop') && (
              <ConfirmButton
                label={t('dispatch.stop')}
                name={d.dispatchName}
                disabled={action.busy}
                onConfirm={() => void change('stop')}
              />
            )}
          </div>
          {allowed.includes('start') && d.messages.total === 0 && <p class="hint">{t('dispatch.addFirst')}</p>}
          {allowed.includes('start') && d.messages.total > 0 && (
            <p class="hint" data-testid="start-estimate">
              {t('dispatch.startEstimate', { count: d.messages.total, parts: d.parts.total })}
            </p>
          )}
          {allowed.includes('stop') && <p class="hint">{t('dispatch.stopHint')}</p>}
          <NoticeLine notice={notice.notice} />

          <h2>{t('dispatch.progress')}</h2>
          <p>
            <progress value={finished} max={Math.max(1, d.messages.total)} aria-labelledby="dispatch-finished" />{' '}
            <span id="dispatch-finished" data-testid="dispatch-finished">
              {t('dispatch.finished', { finished, total: d.messages.total })}
            </span>
            . {/* Not a live region: the counters change every 2 s. */}
            <span class="hint">
              {updated ? t('dispatch.updated', { time: updated.toLocaleTimeString(currentLocale()) }) : ''}
              {live ? t('dispatch.live', { seconds: REFRESH_MS / 1000 }) : '.'}
            </span>
          </p>
          <ListTable
            label={t('dispatch.counters')}
            columns={[
              { label: t('dispatch.counted'), hidden: true },
              ...COUNTERS.map((c) => ({ label: counterLabel(c), class: 'num' })),
            ]}
            rows={(['messages', 'parts'] as const).map((kind) => ({ kind, counts: d[kind] }))}
            row={({ kind, counts }) => (
              <tr key={kind}>
                <th scope="row">{kind === 'messages' ? t('col.messages') : t('col.parts')}</th>
                {COUNTERS.map((c) => (
                  <td class="num" key={c} data-testid={`${kind}-${c}`}>
                    {formatNumber(counts[c])}
                  </td>
                ))}
              </tr>
            )}
          />
          <p>
            <a href={`/app/messages?dispatch_id=${d.dispatchId}`}>{t('message.itsMessages')}</a>
          </p>
          <SentChart dispatch={d} />

          {d.status === 'initiated' && <DispatchUpload dispatch={d} onAdded={dispatch.reload} />}
        </>
      )}
    </Page>
  );
}

/** A dispatch's cascade steps as given: each step's channel, sender name, text and when the next one follows. */
function CascadeSteps({ steps }: { steps: readonly unknown[] }) {
  return (
    <ol class="steps" aria-label={t('message.cascadeSteps')}>
      {steps.map((raw, i) => {
        const step = raw as { channelType?: string; senderName?: string; content?: unknown; condition?: Condition };
        return (
          <li key={i} data-testid="dispatch-step">
            {t('dispatch.stepFrom', { channel: codeWord('channel', step.channelType), name: step.senderName ?? '' })}
            {step.condition ? t('dispatch.nextStep', { condition: conditionText(step.condition) }) : ''}:{' '}
            <span class="pre">{contentText(step.content)}</span>
          </li>
        );
      })}
    </ol>
  );
}

/** Messages sent per minute (or hour), from the sent times of the dispatch's messages, read when a counter moves. */
function SentChart({ dispatch }: { dispatch: Dispatch }) {
  const { dispatchId, messages } = dispatch;
  const handed = messages.sent + messages.delivered + messages.undelivered;
  const readable = messages.total <= CHART_MAX_MESSAGES;
  const list = useAsync(
    (signal) =>
      readable && handed > 0
        ? traffic.get('/api/v1/message', {
            signal,
            query: { dispatch_id: dispatchId, per_page: CHART_MAX_MESSAGES },
          })
        : Promise.resolve(undefined),
    [dispatchId, JSON.stringify(messages)],
  );
  if (handed === 0) return null;
  if (!readable) return <p class="hint">{t('dispatch.chartLimit', { max: CHART_MAX_MESSAGES })}</p>;
  if (!list.data) return list.error ? <AsyncState state={list} what={t('dispatch.theSent')} /> : null;
  const { unit, points } = sentPer(list.data.items.map((m) => m.sentTime));
  return (
    <BarChart
      title={t(unit === 'hour' ? 'dispatch.chartHour' : 'dispatch.chartMinute')}
      points={points}
      barLabel={t('dispatch.sent')}
    />
  );
}
