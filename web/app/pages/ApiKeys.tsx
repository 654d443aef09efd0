import { t } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { keyTypes, KeysTable, type KeyRow, type KeyType } from '../../shared/keys.js';
import {
  AsyncState,
  ConfirmButton,
  NoticeLine,
  Page,
  Secret,
  SelectField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { system } from '../session.js';

/** API keys (list, create, revoke; a new key is shown once) and the callback signing secret (show, rotate). */
export function ApiKeys() {
  const notice = useNotice();
  const action = useAction(notice);
  const keys = useAsync((signal) => system.get('/api/v1/api-keys', { signal }), []);
  const centers = useAsync((signal) => system.get('/api/v1/traffic-centers', { signal }), []);
  const [type, setType] = useState<KeyType>('traffic');
  const [center, setCenter] = useState('');
  const [created, setCreated] = useState<{ id: string; token: string } | undefined>(undefined);

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const key = await system.post('/api/v1/api-keys', {
        body: { type, ...(type === 'traffic' && center ? { trafficCenterId: Number(center) } : {}) },
      });
      setCreated({ id: key.id, token: key.token });
      keys.reload();
      return t('apiKeys.created');
    });
  };
  const revoke = (key: KeyRow) =>
    action.run(async () => {
      await system.delete('/api/v1/api-keys/{id}', { params: { id: key.id } });
      keys.reload();
      return t('apiKeys.revoked', { id: key.id });
    });
  const centerName = (id: number | null) =>
    id === null ? '—' : (centers.data?.items.find((c) => c.id === id)?.name ?? `#${id}`);

  return (
    <Page title={t('app.nav.apiKeys')}>
      <NoticeLine notice={notice.notice} />
      <form class="card" onSubmit={create} aria-labelledby="new-key">
        <h2 id="new-key">{t('apiKeys.create')}</h2>
        <div class="grid">
          <SelectField label={t('apiKeys.type')} value={type} onValue={setType} options={keyTypes()} />
          {type === 'traffic' && (
            <SelectField
              label={t('apiKeys.center')}
              value={center}
              onValue={setCenter}
              options={[
                { value: '', label: t('ui.none') },
                ...(centers.data?.items ?? []).map((c) => ({ value: String(c.id), label: c.name })),
              ]}
            />
          )}
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('apiKeys.createButton')}
          </button>
        </div>
        {created && <Secret label={t('apiKeys.new')} value={created.token} />}
      </form>

      <AsyncState state={keys} what={t('app.nav.apiKeys')} />
      {keys.data && (
        <KeysTable
          label={t('app.nav.apiKeys')}
          keys={keys.data.items}
          centerName={centerName}
          busy={action.busy}
          onRevoke={(key) => void revoke(key)}
        />
      )}

      <CallbackSecret />
    </Page>
  );
}

function CallbackSecret() {
  const notice = useNotice();
  const action = useAction(notice);
  const [shown, setShown] = useState(false);
  const secret = useAsync((signal) => system.get('/api/v1/callback-secret', { signal }), []);
  const rotate = () =>
    action.run(async () => {
      await system.post('/api/v1/callback-secret/rotate');
      secret.reload();
      setShown(true);
      return t('apiKeys.rotated');
    });
  return (
    <section class="card" aria-labelledby="callback-secret">
      <h2 id="callback-secret">{t('apiKeys.secret')}</h2>
      <p class="hint">{t('apiKeys.secretHint')}</p>
      <AsyncState state={secret} what={t('apiKeys.theSecret')} />
      {secret.data &&
        (shown ? (
          <Secret label={t('apiKeys.secret')} value={secret.data.secret} />
        ) : (
          <p class="mono">••••••••••••••••</p>
        ))}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setShown(!shown)} aria-pressed={shown}>
          {shown ? t('apiKeys.hide') : t('apiKeys.show')}
        </button>
        <ConfirmButton
          label={t('apiKeys.rotate')}
          name={t('apiKeys.secretName')}
          disabled={action.busy}
          onConfirm={() => void rotate()}
        />
      </div>
      <NoticeLine notice={notice.notice} />
    </section>
  );
}
