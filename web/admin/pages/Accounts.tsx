import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { AmountField, useAmount } from '../../shared/amountField.js';
import { formatBalance, formatTime } from '../../shared/format.js';
import {
  AsyncState,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  Secret,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { admin } from '../session.js';

const PER_PAGE = 50;

/** Accounts: the list (paginated) and a form to create one; its two tokens are shown once. */
export function Accounts() {
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState('');
  const creditLimit = useAmount({ zero: true, max: 1e12 });
  const [created, setCreated] = useState<{ id: number; name: string; traffic: string; system: string } | undefined>(
    undefined,
  );
  const notice = useNotice();
  const action = useAction(notice);
  const list = useAsync(
    (signal) => admin.get('/admin/v1/accounts', { signal, query: { page, per_page: PER_PAGE } }),
    [page],
  );

  const create = (event: Event) => {
    event.preventDefault();
    const limit = creditLimit.text.trim() ? creditLimit.check() : undefined;
    if (creditLimit.text.trim() && limit === undefined) return;
    void action.run(async () => {
      const account = await admin.post('/admin/v1/accounts', {
        body: {
          name: name.trim(),
          ...(currency.trim() ? { currency: currency.trim().toUpperCase() } : {}),
          ...(limit !== undefined ? { creditLimit: limit } : {}),
        },
      });
      setCreated({ id: account.id, name: account.name, ...account.tokens });
      setName('');
      list.reload();
      return t('accounts.created', { name: account.name });
    });
  };

  return (
    <Page title={t('admin.nav.accounts')}>
      <form class="card" onSubmit={create} aria-labelledby="new-account">
        <h2 id="new-account">{t('accounts.create')}</h2>
        <div class="grid">
          <TextField label={t('accounts.name')} value={name} onValue={setName} required maxLength={200} />
          <TextField
            label={t('accounts.currency')}
            value={currency}
            onValue={setCurrency}
            maxLength={3}
            hint={t('accounts.currencyHint')}
          />
          <AmountField label={t('accounts.creditLimit')} amount={creditLimit} />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('accounts.createButton')}
          </button>
        </div>
        <NoticeLine notice={notice.notice} />
        {created && (
          <div class="tokens">
            <p>
              {t('accounts.tokensOf')} <a href={`/admin/accounts/${created.id}`}>{created.name}</a>
              {t('accounts.shownOnce')}
            </p>
            <Secret label={t('accounts.trafficToken')} value={created.traffic} />
            <Secret label={t('accounts.systemToken')} value={created.system} />
          </div>
        )}
      </form>

      <AsyncState state={list} what={t('accounts.theAccounts')} />
      {list.data && (
        <>
          <ListTable
            label={t('admin.nav.accounts')}
            columns={texts(
              'col.id',
              'col.name',
              'col.status',
              'col.balance',
              'col.channels',
              'col.inbound',
              'col.created',
            )}
            sorts={[
              (a) => a.id,
              (a) => a.name,
              (a) => codeWord('accountStatus', a.status),
              (a) => Object.values(a.balance)[0],
              undefined,
              (a) => Number(a.inbound),
              (a) => a.createdAt,
            ]}
            rows={list.data.items}
            row={(a) => (
              <tr key={a.id}>
                <td>{a.id}</td>
                <th scope="row">
                  <a href={`/admin/accounts/${a.id}`}>{a.name}</a>
                </th>
                <td>
                  <span class={`badge account-${a.status}`}>{codeWord('accountStatus', a.status)}</span>
                </td>
                <td class="num">{formatBalance(a.balance)}</td>
                <td>
                  {Object.entries(a.channels)
                    .filter(([, on]) => on)
                    .map(([c]) => codeWord('channel', c))
                    .join(', ') || t('ui.noneLower')}
                </td>
                <td>{t(a.inbound ? 'ui.on' : 'ui.off')}</td>
                <td>{formatTime(a.createdAt)}</td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label={t('accounts.pages')} />
        </>
      )}
    </Page>
  );
}
