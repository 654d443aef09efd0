import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { AmountField, useAmount } from '../../shared/amountField.js';
import { formatAmount, formatTime } from '../../shared/format.js';
import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { type Async, AsyncState, ListTable, Page, useAsync } from '../../shared/ui.js';
import { AccountLink } from '../accountNames.js';
import { formatAge } from '../age.js';
import { admin } from '../session.js';

/** Accounts shown in the low-funds table; the rest are counted. */
const LOW_SHOWN = 10;
/** The default "funds below" (balance and credit limit, in each account's currency): a few hundred SMS. */
const DEFAULT_FUNDS_BELOW = 1000;

/**
 * The console's first page: what needs the operator now. The delivery queue (messages waiting and the oldest's
 * age) and the connectors down (GET /admin/v1/connectors), sender names and templates waiting for moderation, open
 * fraud holds, and the active accounts low on funds (GET /admin/v1/accounts?fundsBelow), each linking to its page.
 */
export function Dashboard() {
  const [tick, setTick] = useState(0);
  const [asOf, setAsOf] = useState(() => new Date().toISOString());
  const refresh = () => {
    setTick(tick + 1);
    setAsOf(new Date().toISOString());
  };
  return (
    <Page
      title={t('admin.nav.dashboard')}
      actions={
        <button type="button" class="secondary" onClick={refresh}>
          {t('ui.refresh')}
        </button>
      }
    >
      <p class="hint">{t('dash.updated', { time: formatTime(asOf) })}</p>
      <div class="cards dashboard">
        <QueueAndConnectors tick={tick} />
        <ModerationCard tick={tick} />
        <HoldsCard tick={tick} />
      </div>
      <LowFunds tick={tick} />
    </Page>
  );
}

function QueueAndConnectors({ tick }: { tick: number }) {
  const state = useAsync((signal) => admin.get('/admin/v1/connectors', { signal }), [tick]);
  const waiting = state.data?.queue.find((q) => q.state === 'waiting');
  const down = state.data?.items.filter((c) => !c.available || c.stale) ?? [];
  return (
    <>
      <Card id="dash-queue" href="/admin/connectors" title={t('dash.queue')} state={state}>
        {waiting &&
          (waiting.messages === 0 ? (
            <p data-testid="dash-waiting">{t('dash.nothingWaits')}</p>
          ) : (
            <p>
              <strong data-testid="dash-waiting">{t('dash.waiting', { count: waiting.messages })}</strong>
              {', '}
              <span data-testid="dash-oldest">{t('dash.oldest', { age: formatAge(waiting.oldestAgeSeconds) })}</span>
            </p>
          ))}
      </Card>
      <Card id="dash-connectors" href="/admin/connectors" title={t('dash.connectors')}>
        {state.data &&
          (down.length === 0 ? (
            <p data-testid="dash-down">{t('dash.allUp', { count: state.data.items.length })}</p>
          ) : (
            <>
              <p class="notice error" data-testid="dash-down">
                {t('dash.down', { count: down.length })}
              </p>
              <ul>
                {down.map((c) => (
                  <li key={`${c.id}-${c.process}`}>
                    {c.id}: {codeWord('connectorState', c.state)}
                    {c.stale ? ` (${t('connectors.stale')})` : ''}
                  </li>
                ))}
              </ul>
            </>
          ))}
      </Card>
    </>
  );
}

/** A card of the dashboard: its heading links to the page that deals with it; its figures once loaded. */
function Card({
  id,
  href,
  title,
  state,
  children,
}: {
  id: string;
  href: string;
  title: string;
  state?: Async<unknown>;
  children: ComponentChildren;
}) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>
        <a href={href}>{title}</a>
      </h2>
      {state && <AsyncState state={state} what={title} />}
      {children}
    </section>
  );
}

function ModerationCard({ tick }: { tick: number }) {
  const state = useAsync(
    (signal) =>
      Promise.all([
        admin.get('/admin/v1/sender-names', { signal, query: { status: 'Pending', per_page: 1 } }),
        admin.get('/admin/v1/templates', { signal, query: { status: 'INTERNAL_REVIEW', per_page: 1 } }),
      ]),
    [tick],
  );
  return (
    <Card id="dash-moderation" href="/admin/moderation" title={t('dash.moderation')} state={state}>
      {state.data && (
        <ul>
          <li data-testid="dash-sender-names">{t('dash.senderNames', { count: state.data[0].total })}</li>
          <li data-testid="dash-templates">{t('dash.templates', { count: state.data[1].total })}</li>
        </ul>
      )}
    </Card>
  );
}

function HoldsCard({ tick }: { tick: number }) {
  const state = useAsync(
    (signal) => admin.get('/admin/v1/holds', { signal, query: { status: 'open', per_page: 1 } }),
    [tick],
  );
  return (
    <Card id="dash-holds" href="/admin/holds" title={t('admin.nav.holds')} state={state}>
      {state.data && <p data-testid="dash-holds">{t('dash.holds', { count: state.data.total })}</p>}
    </Card>
  );
}

function LowFunds({ tick }: { tick: number }) {
  const below = useAmount({ negative: true, zero: true }, String(DEFAULT_FUNDS_BELOW));
  const [shown, setShown] = useState(DEFAULT_FUNDS_BELOW);
  const state = useAsync(
    (signal) => admin.get('/admin/v1/accounts', { signal, query: { fundsBelow: shown, per_page: LOW_SHOWN } }),
    [tick, shown],
  );
  return (
    <section aria-labelledby="dash-low">
      <h2 id="dash-low">{t('dash.lowFunds')}</h2>
      <form
        class="toolbar"
        aria-labelledby="dash-low"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const value = below.check();
          if (value !== undefined) setShown(value);
        }}
      >
        <AmountField label={t('dash.fundsBelow')} amount={below} hint={t('dash.fundsHint')} />
        <button type="submit" class="secondary">
          {t('dash.show')}
        </button>
      </form>
      <AsyncState state={state} what={t('dash.lowFunds')} />
      {state.data && (
        <>
          <ListTable
            label={t('dash.lowTable')}
            columns={[
              t('col.account'),
              ...texts('col.status'),
              { label: t('col.balance'), class: 'num' },
              { label: t('accounts.creditLimit'), class: 'num' },
              { label: t('dash.funds'), class: 'num' },
            ]}
            rows={state.data.items}
            empty={t('dash.noneLow', { amount: formatAmount(shown, null) })}
            row={(a) => {
              const balance = a.balance[a.currency] ?? 0;
              return (
                <tr key={a.id} data-testid="low-funds-row">
                  <th scope="row">
                    <AccountLink id={a.id} />
                  </th>
                  <td>{codeWord('accountStatus', a.status)}</td>
                  <td class="num">{formatAmount(balance, a.currency)}</td>
                  <td class="num">{formatAmount(a.creditLimit, a.currency)}</td>
                  <td class="num" data-testid="low-funds-value">
                    {formatAmount(Math.round((balance + a.creditLimit) * 1e6) / 1e6, a.currency)}
                  </td>
                </tr>
              );
            }}
          />
          {state.data.total > state.data.items.length && (
            <p class="hint">{t('dash.more', { count: state.data.total - state.data.items.length })}</p>
          )}
        </>
      )}
    </section>
  );
}
