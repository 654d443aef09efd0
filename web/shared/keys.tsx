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
      columns={['Id', 'Type', 'Center', 'Created', 'Revoked', { label: 'Actions', hidden: true }]}
      rows={keys}
      empty="No API keys."
      row={(key) => (
        <tr key={key.id}>
          <th scope="row" class="mono">
            {key.id}
          </th>
          <td>{key.type}</td>
          <td>{centerName(key.trafficCenterId)}</td>
          <td>{formatTime(key.createdAt)}</td>
          <td>{key.revokedAt ? formatTime(key.revokedAt) : 'Active'}</td>
          <td>
            {!key.revokedAt && (
              <ConfirmButton label="Revoke" name={`key ${key.id}`} disabled={busy} onConfirm={() => onRevoke(key)} />
            )}
          </td>
        </tr>
      )}
    />
  );
}

/** The three kinds of key, as a select offers them. */
export const KEY_TYPES = [
  { value: 'traffic', label: 'Traffic (TOKEN_1: sending)' },
  { value: 'system', label: 'System (TOKEN_2: settings, statistics)' },
  { value: 'verify', label: 'Verify (TOKEN_3: one-time codes)' },
] as const;

export type KeyType = (typeof KEY_TYPES)[number]['value'];
