import { currentLocale, codeWord, t, texts } from '../../shared/i18n/index.js';
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { formatTime, formatNumber } from '../../shared/format.js';
import { formatAge } from '../age.js';
import { readableError } from '../lastError.js';
import { CheckField, ListTable, Page } from '../../shared/ui.js';
import { admin } from '../session.js';
import type { Connectors as ConnectorsData } from '../types.js';

const REFRESH_MS = 2000;

/** Connectors with their live state and the queue depth per state, refreshed every 2 s while the page is open. */
export function Connectors() {
  const [data, setData] = useState<ConnectorsData | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [updated, setUpdated] = useState<Date | undefined>(undefined);
  const [live, setLive] = useState(true);

  useEffect(() => {
    if (!live) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    // The next poll starts 2 s after the previous answer, so a slow answer never piles requests up.
    const poll = async () => {
      try {
        const next = await admin.get('/admin/v1/connectors', { signal: controller.signal });
        if (stopped) return;
        setData(next);
        setError(undefined);
        setUpdated(new Date());
      } catch (e) {
        if (stopped) return;
        setError(errorText(e));
      }
      if (!stopped) timer = setTimeout(() => void poll(), document.hidden ? REFRESH_MS * 5 : REFRESH_MS);
    };
    void poll();
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
  }, [live]);

  return (
    <Page title={t('admin.nav.connectors')}>
      <div class="toolbar">
        <CheckField label={t('connectors.live')} checked={live} onChecked={setLive} />
        {/* Not a live region: announcing every 2 s would drown a screen reader. */}
        <span class="hint">
          {updated
            ? t('dispatch.updated', { time: updated.toLocaleTimeString(currentLocale()) })
            : t('send.loadingNames')}
        </span>
      </div>
      <p class={`notice ${error ? 'error' : ''}`} role="status" aria-live="polite">
        {error ? t('dispatch.refreshFailed', { error }) : ''}
      </p>
      {data && (
        <>
          <ListTable
            label={t('admin.nav.connectors')}
            columns={[
              ...texts('col.connector', 'col.channel', 'col.type', 'col.profile', 'col.process', 'col.state'),
              ...(
                [
                  'col.inFlight',
                  'col.submitRate',
                  'col.submitted',
                  'col.queued',
                  'col.throttled',
                  'col.balance',
                ] as const
              ).map((key) => ({ label: t(key), class: 'num' })),
              ...texts('col.lastError', 'col.updated'),
            ]}
            rows={data.items}
            empty={t('connectors.none')}
            row={(c) => (
              <tr key={`${c.id}-${c.process}`} class={c.stale ? 'stale' : ''}>
                <th scope="row">{c.id}</th>
                <td>{codeWord('channel', c.channel)}</td>
                <td>{c.type}</td>
                <td data-testid="connector-profile">{c.profile ?? '—'}</td>
                <td class="mono">{c.process}</td>
                <td>
                  <span class={`badge conn-${c.available ? 'up' : 'down'}`} data-testid="connector-state">
                    {codeWord('connectorState', c.state)}
                  </span>
                  {c.stale && <span class="hint"> ({t('connectors.stale')})</span>}
                </td>
                <td class="num">
                  {c.inFlight} / {c.window}
                </td>
                <td class="num">
                  {/* null until the connector has reported twice */}
                  {c.submitRate === null
                    ? '—'
                    : t('connectors.rate', {
                        rate: formatNumber(c.submitRate, { maximumFractionDigits: 1, minimumFractionDigits: 1 }),
                      })}
                  {c.mps ? t('connectors.max', { mps: c.mps }) : ''}
                </td>
                <td class="num">{formatNumber(c.submitted)}</td>
                <td class="num" data-testid="connector-queued">
                  {formatNumber(c.queued)}
                </td>
                <td class="num" data-testid="connector-throttled">
                  {/* Answers that asked to send slower; the pause they started, while it lasts */}
                  {formatNumber(c.throttled)}
                  {c.pausedUntil && (
                    <span class="hint"> ({t('connectors.pausedUntil', { time: formatTime(c.pausedUntil) })})</span>
                  )}
                </td>
                <td class="num" data-testid="connector-balance">
                  {c.balance === null ? '—' : formatNumber(c.balance)}
                </td>
                <td class="last-error" data-testid="connector-last-error">
                  {c.lastError ? <LastError text={c.lastError} at={c.lastErrorAt} /> : '—'}
                </td>
                <td>{formatTime(c.updatedAt)}</td>
              </tr>
            )}
          />

          <h2>{t('connectors.queue')}</h2>
          <ListTable
            label={t('connectors.queueTable')}
            columns={[
              t('col.state'),
              { label: t('col.messages'), class: 'num' },
              { label: t('col.oldest'), class: 'num' },
            ]}
            rows={data.queue}
            empty={t('connectors.queueEmpty')}
            row={(q) => (
              <tr key={q.state}>
                <th scope="row">{codeWord('queueState', q.state)}</th>
                <td class="num" data-testid={`queue-${q.state}`}>
                  {formatNumber(q.messages)}
                </td>
                <td class="num" data-testid={`queue-${q.state}-oldest`}>
                  {formatAge(q.oldestAgeSeconds)}
                </td>
              </tr>
            )}
          />
        </>
      )}
    </Page>
  );
}

/** A connector's last error: when, then its words (a provider's JSON as its fields), the raw text on demand. */
function LastError({ text, at }: { text: string; at: string | null }) {
  const { summary, whole } = readableError(text);
  return (
    <>
      {at && <time dateTime={at}>{formatTime(at)}</time>}
      {at && ' — '}
      <span data-testid="last-error-text">{summary}</span>
      {whole && (
        <details>
          <summary>{t('connectors.fullError')}</summary>
          <pre>{whole}</pre>
        </details>
      )}
    </>
  );
}
