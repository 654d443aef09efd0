import type { Queryable } from '../db/db.js';

export interface LedgerEntryRow {
  id: number;
  account_id: number;
  currency: string;
  amount: string;
  kind: string;
  reference: string | null;
  comment: string | null;
  created_at: Date;
}

export const LEDGER_KINDS = ['adjustment', 'reserve', 'refund'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/**
 * Appends an entry and moves the account's running balance in the same statement, so that the balance row
 * always equals the sum of the ledger. Call inside a transaction with other writes it belongs to.
 * Returns the new balance of that currency.
 */
export async function ledgerAppend(
  db: Queryable,
  entry: {
    accountId: number;
    currency: string;
    amount: string | number;
    kind: LedgerKind;
    reference?: string | null;
    comment?: string | null;
    now: Date;
  },
): Promise<string> {
  const [row] = await db.query<{ amount: string }>(
    `WITH entry AS (
       INSERT INTO balance_ledger (account_id, currency, amount, kind, reference, comment, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING account_id, currency, amount, created_at
     )
     INSERT INTO account_balances (account_id, currency, amount, updated_at)
     SELECT account_id, currency, amount, created_at FROM entry
     ON CONFLICT (account_id, currency) DO UPDATE
       SET amount = account_balances.amount + excluded.amount, updated_at = excluded.updated_at
     RETURNING amount`,
    [
      entry.accountId,
      entry.currency,
      String(entry.amount),
      entry.kind,
      entry.reference ?? null,
      entry.comment ?? null,
      entry.now,
    ],
  );
  return row!.amount;
}

export async function balanceGet(db: Queryable, accountId: number): Promise<{ currency: string; amount: string }[]> {
  return db.query<{ currency: string; amount: string }>(
    'SELECT currency, amount FROM account_balances WHERE account_id = $1 ORDER BY currency',
    [accountId],
  );
}

/**
 * Locks an account's balances in the given currencies (sorted), creating those it lacks at 0, for the caller's
 * transaction, and returns them with the account's credit limit.
 */
export async function balancesLock(
  tx: Queryable,
  accountId: number,
  currencies: readonly string[],
  now: Date,
): Promise<{ currency: string; amount: string; credit_limit: string }[]> {
  // Lock in a fixed order (sorted currencies) so that two batches never wait on each other in a cycle.
  await tx.query(
    `INSERT INTO account_balances (account_id, currency, amount, updated_at)
     SELECT $1, c, 0, $3 FROM unnest($2::text[]) AS c ON CONFLICT DO NOTHING`,
    [accountId, currencies, now],
  );
  // FOR UPDATE OF b: the balance rows are locked, the account row (read for its credit limit) is not.
  return tx.query<{ currency: string; amount: string; credit_limit: string }>(
    `SELECT b.currency, b.amount, a.credit_limit FROM account_balances b JOIN accounts a ON a.id = b.account_id
     WHERE b.account_id = $1 AND b.currency = ANY($2::text[]) ORDER BY b.currency FOR UPDATE OF b`,
    [accountId, currencies],
  );
}

export async function ledgerList(
  db: Queryable,
  accountId: number,
  limit: number,
  offset: number,
): Promise<LedgerEntryRow[]> {
  return db.query<LedgerEntryRow>(
    `SELECT id, account_id, currency, amount, kind, reference, comment, created_at
     FROM balance_ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
    [accountId, limit, offset],
  );
}

export async function ledgerCount(db: Queryable, accountId: number): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*) AS n FROM balance_ledger WHERE account_id = $1', [
    accountId,
  ]);
  return row!.n;
}

/**
 * CTEs that append ledger entries from a relation (account_id, currency, amount) and move the running balances by
 * the same amounts, inside a larger statement: the balance stays the sum of the ledger.
 */
export function ledgerCreditCte(source: string, kind: LedgerKind, now: string): string {
  return `ledger_source AS (SELECT * FROM ${source} s WHERE s.amount <> 0),
     ledger_entries AS (
       INSERT INTO balance_ledger (account_id, currency, amount, kind, created_at)
       SELECT account_id, currency, amount, '${kind}', ${now} FROM ledger_source
     ),
     ledger_balances AS (
       INSERT INTO account_balances (account_id, currency, amount, updated_at)
       SELECT account_id, currency, amount, ${now} FROM ledger_source
       ON CONFLICT (account_id, currency) DO UPDATE
         SET amount = account_balances.amount + excluded.amount, updated_at = excluded.updated_at
     )`;
}
