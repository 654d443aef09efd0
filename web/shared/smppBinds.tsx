import type { ComponentChildren } from 'preact';
import { t, texts } from './i18n/index.js';
import { formatTime } from './format.js';
import { ListTable } from './ui.js';

/** A client's SMPP bind as GET /api/v1/smpp-binds and /admin/v1/smpp-binds list it. */
export interface BindRow {
  accountId: number;
  systemId: string;
  address: string;
  bindType: 'transmitter' | 'receiver' | 'transceiver';
  since: string;
  window: { submits: number; delivers: number; size: number };
}

/** The binds of an SMPP server (both web pages; docs/smpp-server.md): with the account column for the operator. */
export function BindsTable({
  binds,
  account,
}: {
  binds: readonly BindRow[];
  /** The operator's account column: how to show an account (its name, a link to it). */
  account?: (id: number) => ComponentChildren;
}) {
  return (
    <ListTable
      label={t('admin.nav.smppBinds')}
      columns={[
        ...(account ? texts('col.account') : []),
        ...texts('smpp.systemId', 'smpp.address', 'smpp.bindType', 'smpp.since', 'smpp.submits', 'smpp.receipts'),
      ]}
      rows={binds}
      empty={t('smpp.none')}
      row={(b, i) => (
        <tr key={i} data-testid="smpp-bind-row">
          {account && <td>{account(b.accountId)}</td>}
          <th scope="row" class="mono">
            {b.systemId}
          </th>
          <td class="mono">{b.address}</td>
          <td>{b.bindType}</td>
          <td>{formatTime(b.since)}</td>
          <td>
            {b.window.submits} / {b.window.size}
          </td>
          <td>{b.window.delivers}</td>
        </tr>
      )}
    />
  );
}
