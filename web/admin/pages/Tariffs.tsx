import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import type { RequestBody } from '../../shared/apiClient.js';
import { AmountField, useAmount } from '../../shared/amountField.js';
import { type Channel, CHANNELS, formatAmount, formatMoney, formatTime } from '../../shared/format.js';
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
import { AccountLink, accountLabel, useAccountName } from '../accountNames.js';
import { ConfirmPanel } from '../confirm.js';
import { admin } from '../session.js';
import type { Tariff } from '../types.js';

/** What a tariff prices, in words: "SMS messages to numbers starting with 7916". */
function appliesTo(tariff: RequestBody<'/admin/v1/tariffs', 'post'>): string {
  const channel = codeWord('channel', tariff.channelType);
  if (tariff.prefix !== undefined) return t('tariffs.whatPrefix', { channel, prefix: tariff.prefix });
  if (tariff.country !== undefined) return t('tariffs.whatCountry', { channel, country: tariff.country });
  return t('tariffs.whatAny', { channel });
}

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
    currency: 'RUB',
  });
  const price = useAmount({ zero: true, max: 1e9 });
  const [errors, setErrors] = useState<{ accountId?: string; prefix?: string; country?: string }>({});
  const [pending, setPending] = useState<RequestBody<'/admin/v1/tariffs', 'post'> | undefined>(undefined);
  const accountName = useAccountName(/^\d+$/.test(form.accountId.trim()) ? Number(form.accountId) : undefined);
  // Any change to the form takes the preview away: what is created is what was previewed.
  const set =
    <K extends keyof typeof form>(name: K) =>
    (value: (typeof form)[K]) => {
      setPending(undefined);
      setErrors({});
      setForm({ ...form, [name]: value });
    };

  /** The tariff the form describes, or the fields at fault (each says what is wrong, under the field). */
  const review = (event: Event) => {
    event.preventDefault();
    const found: typeof errors = {};
    const accountId = form.accountId.trim();
    if (accountId && !/^[1-9]\d{0,15}$/.test(accountId)) found.accountId = t('tariffs.accountInvalid');
    const prefix = form.prefix.trim();
    if (form.match === 'prefix' && !prefix) found.prefix = t('tariffs.prefixRequired');
    else if (form.match === 'prefix' && !/^\d{1,15}$/.test(prefix)) found.prefix = t('tariffs.prefixInvalid');
    const country = form.country.trim().toUpperCase();
    if (form.match === 'country' && !/^[A-Z]{2}$/.test(country)) found.country = t('tariffs.countryRequired');
    const perPart = price.check();
    setErrors(found);
    if (Object.keys(found).length > 0 || perPart === undefined) {
      setPending(undefined);
      return;
    }
    setPending({
      channelType: form.channelType,
      price: perPart,
      currency: form.currency.trim().toUpperCase(),
      ...(accountId ? { accountId: Number(accountId) } : {}),
      ...(form.match === 'prefix' ? { prefix } : {}),
      ...(form.match === 'country' ? { country } : {}),
    });
  };
  const create = (body: RequestBody<'/admin/v1/tariffs', 'post'>) =>
    void action.run(async () => {
      const created = await admin.post('/admin/v1/tariffs', { body });
      setPending(undefined);
      tariffs.reload();
      return t('tariffs.added', { id: created.id });
    });
  const remove = (tariff: Tariff) =>
    action.run(async () => {
      await admin.delete('/admin/v1/tariffs/{id}', { params: { id: tariff.id } });
      tariffs.reload();
      return t('tariffs.removed', { id: tariff.id });
    });

  return (
    <Page title={t('admin.nav.tariffs')}>
      <form class="card" onSubmit={review} aria-labelledby="new-tariff" noValidate>
        <h2 id="new-tariff">{t('tariffs.add')}</h2>
        <div class="grid">
          <TextField
            label={t('tariffs.accountId')}
            inputMode="numeric"
            value={form.accountId}
            onValue={set('accountId')}
            hint={
              form.accountId.trim() && accountName !== undefined
                ? accountName === null
                  ? t('unrouted.noAccount', { id: form.accountId.trim() })
                  : accountLabel(Number(form.accountId), accountName)
                : t('tariffs.accountHint')
            }
            error={errors.accountId}
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
              required
              hint={t('tariffs.prefixHint')}
              error={errors.prefix}
            />
          )}
          {form.match === 'country' && (
            <TextField
              label={t('tariffs.country')}
              value={form.country}
              onValue={set('country')}
              maxLength={2}
              required
              hint={t('tariffs.countryHint')}
              error={errors.country}
            />
          )}
          <AmountField
            label={t('tariffs.price')}
            amount={{ ...price, setText: (text) => (setPending(undefined), price.setText(text)) }}
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
            {t('tariffs.review')}
          </button>
        </div>
        {pending && (
          <ConfirmPanel
            title={t('tariffs.appliesTo')}
            testId="tariff-preview"
            lines={[
              [
                t('money.account'),
                pending.accountId === undefined
                  ? t('tariffs.whoAll')
                  : t('tariffs.whoOne', { name: accountLabel(pending.accountId, accountName) }),
                'preview-who',
              ],
              [t('col.channel'), appliesTo(pending), 'preview-what'],
              [
                t('message.price'),
                t('tariffs.perPart', { price: formatAmount(pending.price, pending.currency) }),
                'preview-price',
              ],
            ]}
            confirm={t('tariffs.create')}
            busy={action.busy}
            onCancel={() => setPending(undefined)}
            onConfirm={() => create(pending)}
          />
        )}
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
              <td>{tariff.accountId === null ? t('tariffs.default') : <AccountLink id={tariff.accountId} />}</td>
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
