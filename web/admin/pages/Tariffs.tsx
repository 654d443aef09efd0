import { useState } from 'preact/hooks';
import type { RequestBody } from '../../shared/apiClient.js';
import { type Channel, CHANNELS, formatMoney, formatTime } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  SelectField,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { admin } from '../session.js';
import type { Tariff } from '../types.js';

/** Tariffs: price per part by channel and prefix or country, for one account or the default for all. */
export function Tariffs() {
  const notice = useNotice();
  const action = useAction(notice);
  const [filterAccount, setFilterAccount] = useState('');
  const [shownAccount, setShownAccount] = useState('');
  const tariffs = useAsync(
    (signal) => admin.get('/admin/v1/tariffs', { signal, query: { accountId: shownAccount } }),
    [shownAccount],
  );
  const [form, setForm] = useState({
    accountId: '',
    channelType: 'SMS' as Channel,
    match: 'prefix',
    prefix: '',
    country: '',
    price: '',
    currency: 'RUB',
  });
  const set =
    <K extends keyof typeof form>(name: K) =>
    (value: (typeof form)[K]) =>
      setForm({ ...form, [name]: value });

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const body: RequestBody<'/admin/v1/tariffs', 'post'> = {
        channelType: form.channelType,
        price: Number(form.price),
        currency: form.currency.trim().toUpperCase(),
        ...(form.accountId.trim() ? { accountId: Number(form.accountId) } : {}),
        ...(form.match === 'prefix' && form.prefix.trim() ? { prefix: form.prefix.trim() } : {}),
        ...(form.match === 'country' && form.country.trim() ? { country: form.country.trim().toUpperCase() } : {}),
      };
      const created = await admin.post('/admin/v1/tariffs', { body });
      tariffs.reload();
      return `Tariff ${created.id} added.`;
    });
  };
  const remove = (tariff: Tariff) =>
    action.run(async () => {
      await admin.delete('/admin/v1/tariffs/{id}', { params: { id: tariff.id } });
      tariffs.reload();
      return `Tariff ${tariff.id} removed.`;
    });

  return (
    <Page title="Tariffs">
      <form class="card" onSubmit={create} aria-labelledby="new-tariff">
        <h2 id="new-tariff">Add a tariff</h2>
        <div class="grid">
          <TextField
            label="Account id"
            type="number"
            min="1"
            value={form.accountId}
            onValue={set('accountId')}
            hint="Empty: the default for every account."
          />
          <SelectField label="Channel" value={form.channelType} onValue={set('channelType')} options={CHANNELS} />
          <SelectField
            label="Applies to"
            value={form.match}
            onValue={set('match')}
            options={[
              { value: 'prefix', label: 'Number prefix' },
              { value: 'country', label: 'Country' },
              { value: 'any', label: 'Any destination' },
            ]}
          />
          {form.match === 'prefix' && (
            <TextField
              label="Prefix"
              value={form.prefix}
              onValue={set('prefix')}
              inputMode="numeric"
              pattern="[0-9]{1,15}"
              hint="Digits, e.g. 7916"
            />
          )}
          {form.match === 'country' && (
            <TextField
              label="Country"
              value={form.country}
              onValue={set('country')}
              maxLength={2}
              hint="ISO 3166 code, e.g. RU"
            />
          )}
          <TextField
            label="Price per part"
            type="number"
            min="0"
            step="any"
            value={form.price}
            onValue={set('price')}
            required
          />
          <TextField label="Currency" value={form.currency} onValue={set('currency')} required maxLength={3} />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Add tariff
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />

      <form
        class="toolbar"
        aria-label="Tariff filter"
        onSubmit={(e) => {
          e.preventDefault();
          setShownAccount(filterAccount.trim());
        }}
      >
        <TextField
          label="Show tariffs of account"
          type="number"
          min="1"
          value={filterAccount}
          onValue={setFilterAccount}
          hint="Empty: all tariffs."
        />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <AsyncState state={tariffs} what="tariffs" />
      {tariffs.data && (
        <ListTable
          label="Tariffs"
          columns={[
            'Id',
            'Account',
            'Channel',
            'Prefix',
            'Country',
            { label: 'Price', class: 'num' },
            'Source',
            'Created',
            { label: 'Actions', hidden: true },
          ]}
          rows={tariffs.data.items}
          empty="No tariffs: messages are sent free unless HERALD_REQUIRE_TARIFF is set."
          row={(t) => (
            <tr key={t.id}>
              <th scope="row">{t.id}</th>
              <td>{t.accountId ?? 'default'}</td>
              <td>{t.channelType}</td>
              <td>{t.prefix ?? '—'}</td>
              <td>{t.country ?? '—'}</td>
              <td class="num">{formatMoney(t.price, t.currency)}</td>
              <td>{t.source}</td>
              <td>{formatTime(t.createdAt)}</td>
              <td>
                <ConfirmButton
                  label="Delete"
                  name={`tariff ${t.id}`}
                  disabled={action.busy}
                  onConfirm={() => void remove(t)}
                />
              </td>
            </tr>
          )}
        />
      )}
    </Page>
  );
}
