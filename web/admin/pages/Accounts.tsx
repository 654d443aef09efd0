import { useState } from 'preact/hooks';
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
  const [creditLimit, setCreditLimit] = useState('');
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
    void action.run(async () => {
      const account = await admin.post('/admin/v1/accounts', {
        body: {
          name: name.trim(),
          ...(currency.trim() ? { currency: currency.trim().toUpperCase() } : {}),
          ...(creditLimit ? { creditLimit: Number(creditLimit) } : {}),
        },
      });
      setCreated({ id: account.id, name: account.name, ...account.tokens });
      setName('');
      list.reload();
      return `Account ${account.name} created.`;
    });
  };

  return (
    <Page title="Accounts">
      <form class="card" onSubmit={create} aria-labelledby="new-account">
        <h2 id="new-account">Create an account</h2>
        <div class="grid">
          <TextField label="Account name" value={name} onValue={setName} required maxLength={200} />
          <TextField
            label="Currency"
            value={currency}
            onValue={setCurrency}
            maxLength={3}
            hint="ISO 4217; Herald's default when empty."
          />
          <TextField
            label="Credit limit"
            type="number"
            min="0"
            step="any"
            value={creditLimit}
            onValue={setCreditLimit}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Create account
          </button>
        </div>
        <NoticeLine notice={notice.notice} />
        {created && (
          <div class="tokens">
            <p>
              Tokens of <a href={`/admin/accounts/${created.id}`}>{created.name}</a>, shown once:
            </p>
            <Secret label="Traffic token (TOKEN_1)" value={created.traffic} />
            <Secret label="System token (TOKEN_2)" value={created.system} />
          </div>
        )}
      </form>

      <AsyncState state={list} what="accounts" />
      {list.data && (
        <>
          <ListTable
            label="Accounts"
            columns={['Id', 'Name', 'Status', 'Balance', 'Channels', 'Inbound', 'Created']}
            rows={list.data.items}
            row={(a) => (
              <tr key={a.id}>
                <td>{a.id}</td>
                <th scope="row">
                  <a href={`/admin/accounts/${a.id}`}>{a.name}</a>
                </th>
                <td>
                  <span class={`badge account-${a.status}`}>{a.status}</span>
                </td>
                <td class="num">{formatBalance(a.balance)}</td>
                <td>
                  {Object.entries(a.channels)
                    .filter(([, on]) => on)
                    .map(([c]) => c)
                    .join(', ') || 'none'}
                </td>
                <td>{a.inbound ? 'on' : 'off'}</td>
                <td>{formatTime(a.createdAt)}</td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label="Account pages" />
        </>
      )}
    </Page>
  );
}
