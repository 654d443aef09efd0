import { codeWord, t, texts } from '../../shared/i18n/index.js';
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
  ChannelField,
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
      return t('tariffs.added', { id: created.id });
    });
  };
  const remove = (tariff: Tariff) =>
    action.run(async () => {
      await admin.delete('/admin/v1/tariffs/{id}', { params: { id: tariff.id } });
      tariffs.reload();
      return t('tariffs.removed', { id: tariff.id });
    });

  return (
    <Page title={t('admin.nav.tariffs')}>
      <form class="card" onSubmit={create} aria-labelledby="new-tariff">
        <h2 id="new-tariff">{t('tariffs.add')}</h2>
        <div class="grid">
          <TextField
            label={t('tariffs.accountId')}
            type="number"
            min="1"
            value={form.accountId}
            onValue={set('accountId')}
            hint={t('tariffs.accountHint')}
          />
          <ChannelField value={form.channelType} onValue={set('channelType')} channels={CHANNELS} />
          <SelectField
            label={t('stopList.appliesTo')}
            value={form.match}
            onValue={set('match')}
            options={[
              { value: 'prefix', label: t('tariffs.prefixKind') },
              { value: 'country', label: t('tariffs.country') },
              { value: 'any', label: t('tariffs.any') },
            ]}
          />
          {form.match === 'prefix' && (
            <TextField
              label={t('tariffs.prefix')}
              value={form.prefix}
              onValue={set('prefix')}
              inputMode="numeric"
              pattern="[0-9]{1,15}"
              hint={t('tariffs.prefixHint')}
            />
          )}
          {form.match === 'country' && (
            <TextField
              label={t('tariffs.country')}
              value={form.country}
              onValue={set('country')}
              maxLength={2}
              hint={t('tariffs.countryHint')}
            />
          )}
          <TextField
            label={t('tariffs.price')}
            type="number"
            min="0"
            step="any"
            value={form.price}
            onValue={set('price')}
            required
          />
          <TextField
            label={t('accounts.currency')}
            value={form.currency}
            onValue={set('currency')}
            required
            maxLength={3}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('tariffs.addButton')}
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />

      <form
        class="toolbar"
        aria-label={t('tariffs.filter')}
        onSubmit={(e) => {
          e.preventDefault();
          setShownAccount(filterAccount.trim());
        }}
      >
        <TextField
          label={t('tariffs.ofAccount')}
          type="number"
          min="1"
          value={filterAccount}
          onValue={setFilterAccount}
          hint={t('tariffs.ofAccountHint')}
        />
        <button type="submit" class="secondary">
          {t('tariffs.filterButton')}
        </button>
      </form>
      <AsyncState state={tariffs} what={t('tariffs.theTariffs')} />
      {tariffs.data && (
        <ListTable
          label={t('admin.nav.tariffs')}
          columns={[
            ...texts('col.id', 'col.account', 'col.channel', 'tariffs.prefix', 'tariffs.country'),
            { label: t('message.price'), class: 'num' },
            ...texts('col.source', 'col.created'),
            { label: t('ui.actions'), hidden: true },
          ]}
          rows={tariffs.data.items}
          empty={t('tariffs.none')}
          row={(tariff) => (
            <tr key={tariff.id}>
              <th scope="row">{tariff.id}</th>
              <td>{tariff.accountId ?? t('tariffs.default')}</td>
              <td>{codeWord('channel', tariff.channelType)}</td>
              <td>{tariff.prefix ?? '—'}</td>
              <td>{tariff.country ?? '—'}</td>
              <td class="num">{formatMoney(tariff.price, tariff.currency)}</td>
              <td>{tariff.source}</td>
              <td>{formatTime(tariff.createdAt)}</td>
              <td>
                <ConfirmButton
                  label={t('ui.delete')}
                  name={t('tariffs.name', { id: tariff.id })}
                  disabled={action.busy}
                  onConfirm={() => void remove(tariff)}
                />
              </td>
            </tr>
          )}
        />
      )}
    </Page>
  );
}
