import { contentText, formatMoney, formatTime } from '../../shared/format.js';
import { AsyncState, ListTable, NoticeLine, Page, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { conditionText } from '../cascades.js';
import { system, traffic } from '../session.js';
import type { Message } from '../types.js';

/**
 * One message: its fields, price and parts, status history, its cascade's chain when it is a step of one, and every
 * callback delivery with its attempts.
 */
export function MessagePage({ uuid }: { uuid: string }) {
  const message = useAsync((signal) => traffic.get('/api/v1/message/{uuid}', { params: { uuid }, signal }), [uuid]);
  const notice = useNotice();
  const action = useAction(notice);
  const m = message.data;

  const stop = () =>
    action.run(async () => {
      const result = await traffic.post('/api/v1/message/stop', { body: { uuids: [uuid] } });
      message.reload();
      const code = result.items[0]?.code;
      return code === 200
        ? 'The message is stopped.'
        : code === 202
          ? 'The message is being handed to the carrier and may not stop.'
          : 'The message was already sent.';
    });

  return (
    <Page
      title={`Message ${uuid.slice(0, 8)}…`}
      actions={
        <div class="actions">
          <a href="/app/messages">Back to messages</a>
          <button type="button" class="secondary" onClick={() => message.reload()}>
            Refresh
          </button>
        </div>
      }
    >
      <AsyncState state={message} what="the message" />
      <NoticeLine notice={notice.notice} />
      {m && (
        <>
          <dl class="card facts">
            <dt>Status</dt>
            <dd>
              <span class={`badge status-${m.status}`} data-testid="message-status">
                {m.status}
              </span>
              {m.readStatus && <span class="hint"> (read status: {m.readStatus})</span>}
              {m.errorCode !== null && <span class="hint"> error code {m.errorCode}</span>}
              {m.status === 'sending' && (
                <button type="button" class="secondary small" disabled={action.busy} onClick={() => void stop()}>
                  Stop sending
                </button>
              )}
            </dd>
            <dt>UUID</dt>
            <dd class="mono">{m.messageUuid}</dd>
            <dt>Channel</dt>
            <dd>
              {m.channelType} ({m.direction})
            </dd>
            <dt>Sender name</dt>
            <dd>{m.senderName}</dd>
            <dt>Destination</dt>
            <dd>
              {m.destination}
              {m.country ? ` (${m.country})` : ''}
            </dd>
            <dt>Text</dt>
            <dd class="pre">{contentText(m.content)}</dd>
            <dt>Price</dt>
            <dd data-testid="message-price">
              {formatMoney(m.price.totalPrice, m.price.currency)} {m.price.final ? '(final)' : '(reserved)'}
            </dd>
            <dt>Parts</dt>
            <dd data-testid="message-parts">
              {m.totalParts} ({m.price.invoicedParts} invoiced)
            </dd>
            <dt>Created</dt>
            <dd>{formatTime(m.createdTime)}</dd>
            <dt>Planned</dt>
            <dd>{formatTime(m.plannedSendTime)}</dd>
            <dt>Sent</dt>
            <dd>{formatTime(m.sentTime)}</dd>
            <dt>Tags</dt>
            <dd>{m.tags.length ? m.tags.join(', ') : '—'}</dd>
            {m.cascadeMessageUuid && (
              <>
                <dt>Cascade</dt>
                <dd>
                  step {m.cascadeStep}
                  {m.cascadeMessageUuid !== m.messageUuid && (
                    <>
                      {' '}
                      (first step{' '}
                      <a href={`/app/messages/${m.cascadeMessageUuid}`} class="mono">
                        {m.cascadeMessageUuid.slice(0, 8)}…
                      </a>
                      )
                    </>
                  )}
                </dd>
              </>
            )}
            {m.dispatchId && (
              <>
                <dt>Dispatch</dt>
                <dd>
                  <a href={`/app/dispatches/${m.dispatchId}`} class="mono">
                    {m.dispatchId}
                  </a>
                </dd>
              </>
            )}
            <dt>Callback URL</dt>
            <dd class="mono">
              {m.callbackUrl ? `${m.callbackUrl} (${(m.callbackEvents ?? ['delivered']).join(', ')})` : '—'}
            </dd>
          </dl>

          <h2>Status history</h2>
          <ListTable
            label="Status history"
            columns={['Time', 'Status', 'Error code', 'Detail']}
            rows={m.statusHistory}
            empty="No history yet."
            row={(entry, i) => (
              <tr key={i}>
                <td>{formatTime(entry.at)}</td>
                <td>{entry.status}</td>
                <td>{entry.errorCode ?? '—'}</td>
                <td>
                  {[
                    entry.detail,
                    entry.connector && `via ${entry.connector}`,
                    entry.retryAt && `retry at ${formatTime(entry.retryAt)}`,
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
      <h2>Cascade</h2>
      <AsyncState state={cascade} what="the cascade" />
      {c && (
        <>
          <p>
            <span class={`badge cascade-${c.state}`} data-testid="cascade-state">
              {c.state}
            </span>{' '}
            at step {c.currentStep} of {c.stepCount}, started {formatTime(c.createdTime)}
            {c.endedTime ? `, ended ${formatTime(c.endedTime)}` : ''}.{' '}
            <a href={`/app/messages?cascade_message_uuid=${c.cascadeMessageUuid}`}>Its messages in the list</a>
          </p>
          <ListTable
            label="Cascade steps"
            columns={['Step', 'Channel', 'Sender name', 'Next step', 'Message', 'Status', 'Moved on']}
            rows={c.steps}
            row={(s) => (
              <tr key={s.step} data-testid="cascade-step" aria-current={s.message?.messageUuid === uuid || undefined}>
                <td>{s.step}</td>
                <td>{s.channelType}</td>
                <td>{s.senderName}</td>
                <td>{conditionText(s.condition)}</td>
                <td>
                  {/* In full: the steps' ids are time-ordered (UUIDv7) and share their first characters. */}
                  {!s.message ? (
                    'not created'
                  ) : s.message.messageUuid === uuid ? (
                    'this message'
                  ) : (
                    <a
                      href={`/app/messages/${s.message.messageUuid}`}
                      class="mono"
                      aria-label={`Message of step ${s.step}`}
                    >
                      {s.message.messageUuid}
                    </a>
                  )}
                </td>
                <td>
                  {s.message ? (
                    <>
                      <span class={`badge status-${s.message.status}`}>{s.message.status}</span>
                      {s.message.readStatus && <span class="hint"> ({s.message.readStatus})</span>}
                    </>
                  ) : (
                    '—'
                  )}
                </td>
                <td>{s.movedOn ?? '—'}</td>
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
      return result.items[0]?.code === 200
        ? 'The callback will be sent again.'
        : 'This delivery cannot be replayed now (it is still open).';
    });

  return (
    <>
      <h2>Callbacks</h2>
      <AsyncState state={deliveries} what="callbacks" />
      <NoticeLine notice={notice.notice} />
      {deliveries.data && deliveries.data.length === 0 && <p>No callbacks for this message.</p>}
      {deliveries.data?.map((d) => {
        return (
          <article class="card delivery" key={d.id} aria-labelledby={`delivery-${d.id}`}>
            <h3 id={`delivery-${d.id}`}>
              Delivery <span class="mono">{d.id.slice(0, 8)}…</span>{' '}
              <span class={`badge delivery-${d.state}`}>{d.state}</span>
            </h3>
            <p class="mono clip">{d.url}</p>
            <p class="hint">
              {d.events} event(s), created {formatTime(d.createdTime)}
              {d.nextAttemptTime ? `, next attempt ${formatTime(d.nextAttemptTime)}` : ''}
            </p>
            <ListTable
              label={`Attempts of delivery ${d.id}`}
              columns={['Time', 'HTTP status', { label: 'Latency', class: 'num' }, 'Error']}
              rows={d.attemptsLog}
              empty="Not attempted yet."
              row={(a, i) => (
                <tr key={i}>
                  <td>{formatTime(a.time)}</td>
                  <td>{a.httpStatus ?? '—'}</td>
                  <td class="num">{a.latencyMs} ms</td>
                  <td>{a.error ?? '—'}</td>
                </tr>
              )}
            />
            {/* Only a failed delivery can be replayed (the API answers 409 for the others). */}
            {d.state === 'failed' && (
              <div class="actions">
                <button type="button" disabled={action.busy} onClick={() => void replay(d.id)}>
                  Replay
                </button>
              </div>
            )}
          </article>
        );
      })}
    </>
  );
}
