import { useState } from 'preact/hooks';
import { KEY_TYPES, KeysTable, type KeyRow, type KeyType } from '../../shared/keys.js';
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
      return 'API key created. Copy it now: it is not shown again.';
    });
  };
  const revoke = (key: KeyRow) =>
    action.run(async () => {
      await system.delete('/api/v1/api-keys/{id}', { params: { id: key.id } });
      keys.reload();
      return `API key ${key.id} revoked.`;
    });
  const centerName = (id: number | null) =>
    id === null ? '—' : (centers.data?.items.find((c) => c.id === id)?.name ?? `#${id}`);

  return (
    <Page title="API keys">
      <NoticeLine notice={notice.notice} />
      <form class="card" onSubmit={create} aria-labelledby="new-key">
        <h2 id="new-key">Create an API key</h2>
        <div class="grid">
          <SelectField label="Key type" value={type} onValue={setType} options={KEY_TYPES} />
          {type === 'traffic' && (
            <SelectField
              label="Traffic partitioning center"
              value={center}
              onValue={setCenter}
              options={[
                { value: '', label: 'None' },
                ...(centers.data?.items ?? []).map((c) => ({ value: String(c.id), label: c.name })),
              ]}
            />
          )}
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Create key
          </button>
        </div>
        {created && <Secret label="New API key (shown once)" value={created.token} />}
      </form>

      <AsyncState state={keys} what="API keys" />
      {keys.data && (
        <KeysTable
          label="API keys"
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
      return 'Callback secret rotated: callbacks are signed with the new secret from now on.';
    });
  return (
    <section class="card" aria-labelledby="callback-secret">
      <h2 id="callback-secret">Callback secret</h2>
      <p class="hint">Callbacks carry an X-Herald-Signature made with this secret.</p>
      <AsyncState state={secret} what="the callback secret" />
      {secret.data &&
        (shown ? <Secret label="Callback secret" value={secret.data.secret} /> : <p class="mono">••••••••••••••••</p>)}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setShown(!shown)} aria-pressed={shown}>
          {shown ? 'Hide secret' : 'Show secret'}
        </button>
        <ConfirmButton label="Rotate" name="callback secret" disabled={action.busy} onConfirm={() => void rotate()} />
      </div>
      <NoticeLine notice={notice.notice} />
    </section>
  );
}
