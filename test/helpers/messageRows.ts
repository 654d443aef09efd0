import type { Queryable } from '../../src/db/db.js';

/*
 * Tests read and write a message's stored state through these rather than naming `messages` in their SQL. What
 * changes after a message's insert (its status, times, lease, history, price's finality, route) is to move out of
 * `messages` (docs/scaling.md, "The state table: what building it touches"); when it does, these change and the
 * tests that use them do not.
 */

/**
 * A message's columns, what changes included, as a FROM item named `alias`: `SELECT status FROM ${messageRows()}
 * WHERE id = $1`, or `JOIN ${messageRows('m')} ON ...`.
 */
export const messageRows = (alias = 'messages'): string => `messages AS ${alias}`;

/** What tests set on a stored message: the columns that change after its insert, and two a test stages. */
export interface MessageState {
  readonly status?: string;
  readonly status_at?: Date | string;
  readonly due_at?: Date | string | null;
  readonly lease_expires_at?: Date | string | null;
  readonly attempts?: number;
  /** Its history, whole (an array of entries). */
  readonly history?: readonly unknown[];
  readonly sent_at?: Date | string | null;
  readonly read_status?: string | null;
  readonly connector_id?: string | null;
  readonly planned_send_at?: Date | string | null;
  readonly dispatch_id?: string | null;
  readonly hours?: readonly number[] | null;
}

const JSON_COLUMNS: ReadonlySet<string> = new Set(['history']);

/**
 * Sets columns of the messages chosen by `where` (their ids, or every message of an account) to the given values, as
 * a test staging a state the product would reach by other steps. Returns how many messages it changed.
 */
export async function messagesSet(
  db: Queryable,
  where: { readonly ids: readonly string[]; readonly accountId?: number } | { readonly accountId: number },
  state: MessageState,
): Promise<number> {
  const entries = Object.entries(state).filter(([, v]) => v !== undefined);
  if (entries.length === 0) throw new Error('messagesSet: nothing to set');
  const params: unknown[] = [];
  const set = entries.map(([column, value]) => {
    params.push(JSON_COLUMNS.has(column) ? JSON.stringify(value) : value);
    return `${column} = $${params.length}`;
  });
  const filters: string[] = [];
  if (where.accountId !== undefined) filters.push(`account_id = $${params.push(where.accountId)}`);
  if ('ids' in where) filters.push(`id = ANY($${params.push([...where.ids])}::uuid[])`);
  const [changed] = await db.query<{ n: number }>(
    `WITH changed AS (UPDATE messages SET ${set.join(', ')} WHERE ${filters.join(' AND ')} RETURNING 1)
     SELECT count(*)::int AS n FROM changed`,
    params,
  );
  return changed!.n;
}
