import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import type { RequestBody } from '../../shared/apiClient.js';
import { AmountField, useAmount } from '../../shared/amountField.js';
import { CHANNELS, formatAmount, formatBalance, formatMoney, formatNumber, formatTime } from '../../shared/format.js';
import { keyTypes, type KeyRow, KeysTable, type KeyType } from '../../shared/keys.js';
import {
  AsyncState,
  CheckField,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  Secret,
  SelectField,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { GuardSettingsView, SettingsAudit, type GuardSettingsData } from '../../shared/guard.js';
import { accountLabel } from '../accountNames.js';
import { ConfirmPanel } from '../confirm.js';
import { admin } from '../session.js';
import type { Account, User } from '../types.js';

/**
 * One account: status, channel and inbound switches, credit limit, balance adjustments with the ledger, API keys,
 * users.
 */
export function AccountPage({ id: idInPath }: { id: string }) {
  const id = Number(idInPath);
  const account = useAsync((signal) => admin.get('/admin/v1/accounts/{id}', { params: { id }, signal }), [id]);
  const notice = useNotice();
  const action = useAction(notice);
  const [ledgerTick, setLedgerTick] = useState(0);
  const [blocking, setBlocking] = useState(false);
  const a = account.data;

  const patch = (body: RequestBody<'/admin/v1/accounts/{id}', 'patch'>, done: string) =>
    action.run(async () => {
      await admin.patch('/admin/v1/accounts/{id}', { params: { id }, body });
      account.reload();
      return done;
    });

  return (
    <Page
      title={t('account.title', { name: a ? a.name : id })}
      actions={<a href="/admin/accounts">{t('account.back')}</a>}
    >
      <AsyncState state={account} what={t('account.theAccount')} />
      <NoticeLine notice={notice.notice} />
      {a && (
        <>
          <dl class="card facts">
            <dt>{t('col.id')}</dt>
            <dd>{a.id}</dd>
            <dt>{t('col.status')}</dt>
            <dd>
              <span class={`badge account-${a.status}`} data-testid="account-status">
                {codeWord('accountStatus', a.status)}
              </span>{' '}
              {a.status === 'active' ? (
                <button
                  type="button"
                  class="danger small"
                  disabled={action.busy || blocking}
                  aria-label={t('account.blockConfirm', { name: a.name })}
                  onClick={() => setBlocking(true)}
                >
                  {t('account.block')}
                </button>
              ) : (
                <button
                  type="button"
                  class="small"
                  disabled={action.busy}
                  onClick={() => void patch({ status: 'active' }, t('account.unblocked', { name: a.name }))}
                >
                  {t('account.unblock')}
                </button>
              )}
              {blocking && a.status === 'active' && (
                <ConfirmPanel
                  title={t('account.blockQuestion', { name: accountLabel(a.id, a.name) })}
                  lines={[]}
                  note={t('account.blockEffect')}
                  confirm={t('account.blockConfirm', { name: a.name })}
                  busy={action.busy}
                  testId="block-confirmation"
                  onCancel={() => setBlocking(false)}
                  onConfirm={() => {
                    setBlocking(false);
                    void patch({ status: 'blocked' }, t('account.blocked', { name: a.name }));
                  }}
                />
              )}
            </dd>
            <dt>{t('col.balance')}</dt>
            <dd data-testid="account-balance">{formatBalance(a.balance)}</dd>
            <dt>{t('col.created')}</dt>
            <dd>{formatTime(a.createdAt)}</dd>
          </dl>

          <section class="card" aria-labelledby="switches">
            <h2 id="switches">{t('account.switches')}</h2>
            <div class="switches">
              {CHANNELS.map((channel) => (
                <CheckField
                  key={channel}
                  label={codeWord('channel', channel)}
                  switchLike
                  disabled={action.busy}
                  checked={a.channels[channel] ?? false}
                  onChecked={(on) =>
                    void patch(
                      { channels: { [channel]: on } },
                      t(on ? 'account.enabled' : 'account.disabled', { what: codeWord('channel', channel) }),
                    )
                  }
                />
              ))}
              <CheckField
                label={t('col.inbound')}
                switchLike
                disabled={action.busy}
                checked={a.inbound}
                onChecked={(on) =>
                  void patch(
                    { inbound: on },
                    t(on ? 'account.enabled' : 'account.disabled', { what: t('col.inbound') }),
                  )
                }
              />
            </div>
          </section>

          <CreditLimit
            account={a}
            onSave={(limit) =>
              patch({ creditLimit: limit }, t('account.limitSet', { limit: formatAmount(limit, a.currency) }))
            }
            busy={action.busy}
          />
          <BalanceAdjustment
            account={a}
            onDone={() => {
              account.reload();
              setLedgerTick(ledgerTick + 1);
            }}
          />
          <Ledger id={id} tick={ledgerTick} />
          <Tokens id={id} />
          <Users id={id} />
          <GuardSettings
            id={id}
            settings={a.settings}
            busy={action.busy}
            onSave={(body) => void patch(body, t('account.settingsSaved'))}
          />
        </>
      )}
    </Page>
  );
}

/** Rounds a sum of amounts to the six decimals the API keeps (0.1 + 0.2 is 0.3, not 0.30000000000000004). */
const sum = (a: number, b: number) => Math.round((a + b) * 1e6) / 1e6;

/** An amount with its sign: `+1 000,50 ₽`, `-250.00 RUB`. */
const signed = (amount: number, currency: string) => `${amount > 0 ? '+' : ''}${formatAmount(amount, currency)}`;

function CreditLimit({
  account,
  onSave,
  busy,
}: {
  account: Account;
  onSave: (limit: number) => Promise<void>;
  busy: boolean;
}) {
  const limit = useAmount({ zero: true, max: 1e12 }, formatNumber(account.creditLimit, { useGrouping: false }));
  const [pending, setPending] = useState<number | undefined>(undefined);
  const balance = account.balance[account.currency] ?? 0;
  return (
    <form
      class="card inline-form"
      aria-labelledby="credit-limit"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setPending(limit.check());
      }}
    >
      <h2 id="credit-limit">{t('accounts.creditLimit')}</h2>
      <AmountField
        label={t('account.limitIn', { currency: account.currency })}
        amount={{ ...limit, setText: (text) => (setPending(undefined), limit.setText(text)) }}
        required
      />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {t('account.saveLimit')}
        </button>
      </div>
      {pending !== undefined && (
        <ConfirmPanel
          title={t('money.check')}
          lines={[
            [t('money.account'), accountLabel(account.id, account.name)],
            [t('money.limitNow'), formatAmount(account.creditLimit, account.currency), 'preview-limit-now'],
            [t('money.limitAfter'), formatAmount(pending, account.currency), 'preview-limit-after'],
            [t('money.fundsAfter'), formatAmount(sum(balance, pending), account.currency)],
          ]}
          confirm={t('money.setLimit', { name: account.name, limit: formatAmount(pending, account.currency) })}
          busy={busy}
          onCancel={() => setPending(undefined)}
          onConfirm={() => void onSave(pending).then(() => setPending(undefined))}
        />
      )}
    </form>
  );
}

function BalanceAdjustment({ account, onDone }: { account: Account; onDone: () => void }) {
  const amount = useAmount({ negative: true, max: 1e12 });
  const [currency, setCurrency] = useState(account.currency);
  const [comment, setComment] = useState('');
  const [pending, setPending] = useState<{ amount: number; currency: string; comment: string } | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);
  // Any change to the form takes the preview away: what is confirmed is what was previewed.
  const changed =
    <V,>(set: (value: V) => void) =>
    (value: V) => {
      setPending(undefined);
      set(value);
    };
  const review = (event: Event) => {
    event.preventDefault();
    const value = amount.check();
    if (value === undefined) return;
    notice.clear();
    setPending({ amount: value, currency: currency.trim().toUpperCase(), comment: comment.trim() });
  };
  const apply = (p: NonNullable<typeof pending>) =>
    void action.run(async () => {
      const balance = await admin.post('/admin/v1/accounts/{id}/balance', {
        params: { id: account.id },
        body: { currency: p.currency, amount: p.amount, ...(p.comment ? { comment: p.comment } : {}) },
      });
      setPending(undefined);
      amount.setText('');
      setComment('');
      onDone();
      return t('account.adjusted', { balance: formatBalance(balance) });
    });
  const now = pending ? (account.balance[pending.currency] ?? 0) : 0;
  return (
    <form class="card" onSubmit={review} aria-labelledby="adjust" noValidate>
      <h2 id="adjust">{t('account.adjust')}</h2>
      <div class="grid">
        <AmountField label={t('col.amount')} amount={{ ...amount, setText: changed(amount.setText) }} required />
        <TextField
          label={t('accounts.currency')}
          value={currency}
          onValue={changed(setCurrency)}
          required
          maxLength={3}
        />
        <TextField label={t('senderNames.comment')} value={comment} onValue={changed(setComment)} maxLength={500} />
      </div>
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {t('account.adjustButton')}
        </button>
      </div>
      {pending && (
        <ConfirmPanel
          title={t('money.check')}
          testId="balance-preview"
          lines={[
            [t('money.account'), accountLabel(account.id, account.name)],
            [t('money.amount'), signed(pending.amount, pending.currency), 'preview-amount'],
            [t('money.balanceNow'), formatAmount(now, pending.currency), 'preview-balance-now'],
            [
              t('money.balanceAfter'),
              formatAmount(sum(now, pending.amount), pending.currency),
              'preview-balance-after',
            ],
          ]}
          confirm={t(pending.amount > 0 ? 'money.credit' : 'money.debit', {
            amount: formatAmount(Math.abs(pending.amount), pending.currency),
            name: account.name,
          })}
          busy={action.busy}
          onCancel={() => {
            setPending(undefined);
            notice.info(t('money.notApplied'));
          }}
          onConfirm={() => apply(pending)}
        />
      )}
      <NoticeLine notice={notice.notice} />
    </form>
  );
}

function Ledger({ id, tick }: { id: number; tick: number }) {
  const [page, setPage] = useState(1);
  const ledger = useAsync(
    (signal) => admin.get('/admin/v1/accounts/{id}/ledger', { params: { id }, signal, query: { page, per_page: 20 } }),
    [id, page, tick],
  );
  return (
    <section aria-labelledby="ledger">
      <h2 id="ledger">{t('account.ledger')}</h2>
      <AsyncState state={ledger} what={t('account.theLedger')} />
      {ledger.data && (
        <>
          <ListTable
            label={t('account.ledger')}
            columns={[
              ...texts('col.time', 'col.kind'),
              { label: t('col.amount'), class: 'num' },
              ...texts('col.reference', 'senderNames.comment'),
            ]}
            rows={ledger.data.items}
            empty={t('account.noEntries')}
            row={(e) => (
              <tr key={e.id}>
                <td>{formatTime(e.createdAt)}</td>
                <td>{codeWord('ledgerKind', e.kind)}</td>
                <td class="num">{formatMoney(e.amount, e.currency)}</td>
                <td class="mono clip">{e.reference ?? '—'}</td>
                <td>{e.comment ?? '—'}</td>
              </tr>
            )}
          />
          <Pager list={ledger.data} onPage={setPage} label={t('account.ledgerPages')} />
        </>
      )}
    </section>
  );
}

function Users({ id }: { id: number }) {
  const users = useAsync((signal) => admin.get('/admin/v1/accounts/{id}/users', { params: { id }, signal }), [id]);
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const notice = useNotice();
  const action = useAction(notice);
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const user = await admin.post('/admin/v1/accounts/{id}/users', {
        params: { id },
        body: { login: login.trim(), password },
      });
      setLogin('');
      setPassword('');
      users.reload();
      return t('account.userCreated', { login: user.login });
    });
  };
  const remove = (user: User) =>
    action.run(async () => {
      await admin.delete('/admin/v1/accounts/{id}/users/{userId}', { params: { id, userId: user.id } });
      users.reload();
      return t('account.userDeleted', { login: user.login });
    });
  const [resetId, setResetId] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const reset = (event: Event) => {
    event.preventDefault();
    const user = users.data?.items.find((u) => String(u.id) === resetId) ?? users.data?.items[0];
    if (!user) return;
    void action.run(async () => {
      await admin.put('/admin/v1/accounts/{id}/users/{userId}/password', {
        params: { id, userId: user.id },
        body: { password: newPassword },
      });
      setNewPassword('');
      return t('account.passwordSet', { login: user.login });
    });
  };
  return (
    <section aria-labelledby="users">
      <h2 id="users">{t('account.users')}</h2>
      <p class="hint">{t('account.usersHint')}</p>
      <AsyncState state={users} what={t('account.theUsers')} />
      {users.data && (
        <ListTable
          label={t('account.users')}
          columns={[t('app.signIn.login'), t('col.created'), { label: t('ui.actions'), hidden: true }]}
          rows={users.data.items}
          empty={t('account.noUsers')}
          row={(u) => (
            <tr key={u.id}>
              <th scope="row">{u.login}</th>
              <td>{formatTime(u.createdAt)}</td>
              <td>
                <ConfirmButton
                  label={t('ui.delete')}
                  name={t('account.user', { login: u.login })}
                  disabled={action.busy}
                  onConfirm={() => void remove(u)}
                />
              </td>
            </tr>
          )}
        />
      )}
      <form class="card" onSubmit={create} aria-labelledby="new-user">
        <h3 id="new-user">{t('account.addUser')}</h3>
        <div class="grid">
          <TextField label={t('app.signIn.login')} value={login} onValue={setLogin} required autoComplete="off" />
          <TextField
            label={t('app.signIn.password')}
            type="password"
            value={password}
            onValue={setPassword}
            required
            autoComplete="new-password"
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('account.addUserButton')}
          </button>
        </div>
        <NoticeLine notice={notice.notice} />
      </form>
      {users.data && users.data.items.length > 0 && (
        <form class="card" onSubmit={reset} aria-labelledby="reset-password">
          <h3 id="reset-password">{t('account.reset')}</h3>
          <div class="grid">
            <SelectField
              label={t('account.userLabel')}
              value={resetId || String(users.data.items[0]!.id)}
              onValue={setResetId}
              options={users.data.items.map((u) => ({ value: String(u.id), label: u.login }))}
            />
            <TextField
              label={t('account.newPassword')}
              type="password"
              value={newPassword}
              onValue={setNewPassword}
              required
              minLength={8}
              autoComplete="new-password"
            />
          </div>
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              {t('account.setPassword')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The account's API keys: issue one (shown once) and revoke. */
function Tokens({ id }: { id: number }) {
  const tokens = useAsync((signal) => admin.get('/admin/v1/accounts/{id}/tokens', { params: { id }, signal }), [id]);
  const [type, setType] = useState<KeyType>('traffic');
  const [issued, setIssued] = useState<string | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);
  const issue = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const token = await admin.post('/admin/v1/accounts/{id}/tokens', { params: { id }, body: { type } });
      setIssued(token.token);
      tokens.reload();
      return t('account.tokenIssued', { id: token.id });
    });
  };
  const revoke = (key: KeyRow) =>
    action.run(async () => {
      await admin.delete('/admin/v1/accounts/{id}/tokens/{tokenId}', { params: { id, tokenId: key.id } });
      tokens.reload();
      return t('account.tokenRevoked', { id: key.id });
    });
  return (
    <section aria-labelledby="tokens">
      <h2 id="tokens">{t('app.nav.apiKeys')}</h2>
      <AsyncState state={tokens} what={t('app.nav.apiKeys')} />
      {tokens.data && (
        <KeysTable
          label={t('account.tokens')}
          keys={tokens.data.items}
          centerName={(c) => (c === null ? '—' : `#${c}`)}
          busy={action.busy}
          onRevoke={(key) => void revoke(key)}
        />
      )}
      <form class="card" onSubmit={issue} aria-labelledby="new-token">
        <h3 id="new-token">{t('account.issue')}</h3>
        <div class="grid">
          <SelectField label={t('account.tokenType')} value={type} onValue={setType} options={keyTypes()} />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('account.issueButton')}
          </button>
        </div>
        {issued && <Secret label={t('account.newToken')} value={issued} />}
        <NoticeLine notice={notice.notice} />
      </form>
    </section>
  );
}

/** The account's fraud guard and consent settings (the operator's side), the account's narrowing, and the audit. */
function GuardSettings({
  id,
  settings,
  busy,
  onSave,
}: {
  id: number;
  settings: GuardSettingsData;
  busy: boolean;
  onSave: (body: RequestBody<'/admin/v1/accounts/{id}', 'patch'>) => void;
}) {
  const audit = useAsync(
    (signal) => admin.get('/admin/v1/accounts/{id}/settings-audit', { params: { id }, signal }),
    [id, settings],
  );
  return (
    <section class="card" aria-labelledby="guard-settings">
      <h2 id="guard-settings">{t('account.guard')}</h2>
      <GuardSettingsView settings={settings} editing="operator" busy={busy} onSave={(c) => onSave(c as never)} />
      <h3>{t('account.audit')}</h3>
      <AsyncState state={audit} what={t('account.theAudit')} />
      {audit.data && <SettingsAudit items={audit.data.items} />}
    </section>
  );
}
