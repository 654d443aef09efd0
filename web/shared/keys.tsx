import { codeWord, t, texts } from './i18n/index.js';
import type { Answer, Item } from './apiClient.js';
import { formatTime } from './format.js';
import { ConfirmButton, ListTable } from './ui.js';

/** An API key as the client API (/api/v1/api-keys) or the operator API (/admin/v1/accounts/{id}/tokens) lists it. */
export type KeyRow = Item<Answer<'/api/v1/api-keys', 'get'>> | Item<Answer<'/admin/v1/accounts/{id}/tokens', 'get'>>;

/** The table of an account's API keys, with a two-click Revoke on each live one. */
export function KeysTable({
  label,
  keys,
  centerName,
  busy,
  onRevoke,
}: {
  label: string;
  keys: readonly KeyRow[];
  centerName: (id: number | null) => string;
  busy: boolean;
  onRevoke: (key: KeyRow) => void;
}) {
  return (
    <ListTable
      label={label}
      columns={[
        ...texts('col.id', 'col.type', 'col.center', 'col.created', 'col.revoked'),
        { label: t('ui.actions'), hidden: true },
      ]}
      rows={keys}
      empty={t('keys.none')}
      row={(key) => (
        <tr key={key.id}>
          <th scope="row" class="mono">
            {key.id}
          </th>
          <td>{codeWord('keyType', key.type)}</td>
          <td>{centerName(key.trafficCenterId)}</td>
          <td>{formatTime(key.createdAt)}</td>
          <td>{key.revokedAt ? formatTime(key.revokedAt) : t('keys.active')}</td>
          <td>
            {!key.revokedAt && (
              <ConfirmButton
                label={t('keys.revoke')}
                name={t('keys.name', { id: key.id })}
                disabled={busy}
                onConfirm={() => onRevoke(key)}
              />
            )}
          </td>
        </tr>
      )}
    />
  );
}

/** The three kinds of key, as a select offers them. */
export const keyTypes = () =>
  [
    { value: 'traffic', label: t('keys.traffic') },
    { value: 'system', label: t('keys.system') },
    { value: 'verify', label: t('keys.verify') },
  ] as const;

export type KeyType = ReturnType<typeof keyTypes>[number]['value'];
