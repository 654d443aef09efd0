import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { TRAFFIC_TYPES, type TrafficType } from '../shared/trafficTypes.js';

/** Who made an entry (DESIGN 20). */
export const STOP_SOURCES = ['api', 'import', 'keyword', 'link', 'carrier', 'operator'] as const;
export type StopSource = (typeof STOP_SOURCES)[number];

/**
 * An entry to add. `number` is a normalised MSISDN (numbering's normaliseDestination); an absent scope field
 * (channelType, senderName, trafficTypes) matches everything.
 */
export interface NewStopEntry {
  readonly number: string;
  readonly channelType?: Channel | null | undefined;
  readonly senderName?: string | null | undefined;
  readonly trafficTypes?: readonly TrafficType[] | null | undefined;
  readonly source: StopSource;
  readonly comment?: string | null | undefined;
}

/** A stored entry; `accountId` null: the operator's list. */
export interface StopEntry {
  readonly id: number;
  readonly accountId: number | null;
  readonly number: string;
  readonly channelType: Channel | null;
  readonly senderName: string | null;
  readonly trafficTypes: TrafficType[] | null;
  readonly source: StopSource;
  readonly comment: string | null;
  readonly createdAt: Date;
}

/** What a message to check is: its destination and the scope fields entries are matched against. */
export interface StopCheck {
  readonly channelType: Channel;
  readonly senderName: string;
  readonly destination: string;
  readonly trafficType: TrafficType;
}

const COLUMNS = `id, account_id AS "accountId", number, channel_type AS "channelType", sender_name AS "senderName",
  traffic_types AS "trafficTypes", source, comment, created_at AS "createdAt"`;

/** A scope's one spelling: traffic types in the order of TRAFFIC_TYPES, without repeats; none is every type. */
export function trafficTypesKey(types: readonly TrafficType[] | null | undefined): TrafficType[] | null {
  const sorted = TRAFFIC_TYPES.filter((t) => types?.includes(t));
  return sorted.length === 0 ? null : sorted;
}

/** The account's key column (the operator's list is 0) as the unique index spells it. */
const ACCOUNT_KEY = 'coalesce(account_id, 0)';

/**
 * Adds entries to an account's list (`accountId` null: the operator's), in one statement. Idempotent: an entry of
 * the same number and scope as one already there (or earlier in `entries`) adds nothing and keeps the first one's
 * source and comment. Returns how many were added.
 */
export async function stopListAdd(
  tx: Queryable,
  accountId: number | null,
  entries: readonly NewStopEntry[],
  now: Date,
): Promise<number> {
  if (entries.length === 0) return 0;
  // The traffic types travel as one comma-joined text per entry: unnest takes no ragged arrays of arrays.
  const rows = await tx.query<{ added: number }>(
    `WITH added AS (
       INSERT INTO stop_list_entries
         (account_id, number, channel_type, sender_name, traffic_types, source, comment, created_at)
       SELECT $1, n, c, s, string_to_array(t, ','), src, cm, $8
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(n, c, s, t, src, cm)
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     SELECT count(*)::int AS added FROM added`,
    [
      accountId,
      entries.map((e) => e.number),
      entries.map((e) => e.channelType ?? null),
      entries.map((e) => e.senderName ?? null),
      entries.map((e) => trafficTypesKey(e.trafficTypes)?.join(',') ?? null),
      entries.map((e) => e.source),
      entries.map((e) => e.comment ?? null),
      now,
    ],
  );
  return rows[0]!.added;
}

/**
 * Whether each message of an account is on the stop list: the account's or the operator's, an entry whose scope
 * fields are absent or equal to the message's. One statement (see {@link stopListMatchOfAccounts}).
 */
export async function stopListMatch(db: Queryable, accountId: number, items: readonly StopCheck[]): Promise<boolean[]> {
  return stopListMatchIn(db, items, () => accountId);
}

/**
 * {@link stopListMatch} for messages of any accounts (a claim of the submitter). One statement reads the entries of
 * the batch's numbers in the accounts' lists and the operator's, by one scan of the scope index (its two leading
 * columns); the scopes are matched here. Matching them in the statement (an unnest of the batch joined to the
 * entries) took 3 ms of 1000 numbers against 1,000,000 entries, twice the index scan alone (1.8 ms), for a sort
 * and a join of rows that are nearly never there.
 */
export async function stopListMatchOfAccounts(
  db: Queryable,
  items: readonly (StopCheck & { readonly accountId: number })[],
): Promise<boolean[]> {
  return stopListMatchIn(db, items, (item) => item.accountId);
}

/**
 * The match of both, each item's account told by `accountOf`: a batch's messages are not copied to carry their
 * account (a copy of 1000 messages with one field more took 1.7 ms of the 3 this check cost in JavaScript).
 */
async function stopListMatchIn<T extends StopCheck>(
  db: Queryable,
  items: readonly T[],
  accountOf: (item: T) => number,
): Promise<boolean[]> {
  if (items.length === 0) return [];
  const numbers = [...new Set(items.map((i) => i.destination))];
  const accounts = [...new Set(items.map(accountOf)), 0];
  const rows = await db.query<Pick<StopEntry, 'number' | 'accountId' | 'channelType' | 'senderName' | 'trafficTypes'>>(
    `SELECT number, account_id AS "accountId", channel_type AS "channelType", sender_name AS "senderName",
       traffic_types AS "trafficTypes"
     FROM stop_list_entries WHERE number = ANY($1::text[]) AND ${ACCOUNT_KEY} = ANY($2::bigint[])`,
    [numbers, accounts],
  );
  if (rows.length === 0) return items.map(() => false);
  const entries = new Map<string, (typeof rows)[number][]>();
  for (const row of rows) entries.set(row.number, [...(entries.get(row.number) ?? []), row]);
  return items.map((item) =>
    (entries.get(item.destination) ?? []).some(
      (e) =>
        (e.accountId === null || e.accountId === accountOf(item)) &&
        (e.channelType === null || e.channelType === item.channelType) &&
        (e.senderName === null || e.senderName === item.senderName) &&
        (e.trafficTypes === null || e.trafficTypes.includes(item.trafficType)),
    ),
  );
}

/** Filters of a list; null: any. */
export interface StopListFilter {
  readonly number: string | null;
  readonly channelType: Channel | null;
  readonly senderName: string | null;
  readonly source: StopSource | null;
}

/** The condition of a list's filter on parameters $1 (the list's account key) to $5. */
const FILTERED = `${ACCOUNT_KEY} = $1 AND ($2::text IS NULL OR number = $2) AND ($3::text IS NULL OR channel_type = $3)
  AND ($4::text IS NULL OR sender_name = $4) AND ($5::text IS NULL OR source = $5)`;

const filterParams = (accountId: number | null, f: StopListFilter): unknown[] => [
  accountId ?? 0,
  f.number,
  f.channelType,
  f.senderName,
  f.source,
];

/** A page of a list's entries passing the filter, newest first. */
export async function stopListPage(
  db: Queryable,
  accountId: number | null,
  filter: StopListFilter,
  limit: number,
  offset: number,
): Promise<StopEntry[]> {
  return db.query<StopEntry>(
    `SELECT ${COLUMNS} FROM stop_list_entries WHERE ${FILTERED} ORDER BY ${ACCOUNT_KEY} DESC, id DESC
     LIMIT $6 OFFSET $7`,
    [...filterParams(accountId, filter), limit, offset],
  );
}

/** How many of a list's entries pass the filter, counted up to `cap` (a list may hold millions). */
export async function stopListCount(
  db: Queryable,
  accountId: number | null,
  filter: StopListFilter,
  cap: number,
): Promise<number> {
  const rows = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM (SELECT 1 FROM stop_list_entries WHERE ${FILTERED} LIMIT $6) AS e`,
    [...filterParams(accountId, filter), cap],
  );
  return rows[0]!.total;
}

/** Entries of a list after `afterId` (0: from the start) in id order, for an export read in slices. */
export async function stopListSlice(
  db: Queryable,
  accountId: number | null,
  afterId: number,
  limit: number,
): Promise<StopEntry[]> {
  return db.query<StopEntry>(
    `SELECT ${COLUMNS} FROM stop_list_entries WHERE ${ACCOUNT_KEY} = $1 AND id > $2 ORDER BY ${ACCOUNT_KEY}, id
     LIMIT $3`,
    [accountId ?? 0, afterId, limit],
  );
}

/** One entry of a list, if it is there. */
export async function stopListGet(db: Queryable, accountId: number | null, id: number): Promise<StopEntry | undefined> {
  const rows = await db.query<StopEntry>(
    `SELECT ${COLUMNS} FROM stop_list_entries WHERE id = $2 AND ${ACCOUNT_KEY} = $1`,
    [accountId ?? 0, id],
  );
  return rows[0];
}

/** The entry of a number and scope in a list, if it is there (what an add found or made). */
export async function stopListFind(
  db: Queryable,
  accountId: number | null,
  entry: NewStopEntry,
): Promise<StopEntry | undefined> {
  const rows = await db.query<StopEntry>(
    `SELECT ${COLUMNS} FROM stop_list_entries
     WHERE number = $2 AND ${ACCOUNT_KEY} = $1 AND coalesce(channel_type, '') = coalesce($3::text, '')
       AND coalesce(sender_name, '') = coalesce($4::text, '')
       AND coalesce(traffic_types, '{}') = coalesce($5::text[], '{}')`,
    [
      accountId ?? 0,
      entry.number,
      entry.channelType ?? null,
      entry.senderName ?? null,
      trafficTypesKey(entry.trafficTypes),
    ],
  );
  return rows[0];
}

/** Deletes one entry of a list; whether it was there. */
export async function stopListDelete(db: Queryable, accountId: number | null, id: number): Promise<boolean> {
  const rows = await db.query(`DELETE FROM stop_list_entries WHERE id = $2 AND ${ACCOUNT_KEY} = $1 RETURNING id`, [
    accountId ?? 0,
    id,
  ]);
  return rows.length > 0;
}
