import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';

export const SENDER_NAME_STATUSES = ['Pending', 'Approved', 'Rejected'] as const;
export type SenderNameStatus = (typeof SENDER_NAME_STATUSES)[number];

export interface SenderNameRow {
  id: number;
  account_id: number;
  channel_type: Channel;
  name: string;
  status: SenderNameStatus;
  start_date: Date | null;
  comment: string | null;
  manager_comment: string | null;
  created_at: Date;
  updated_at: Date;
  /** A TELEGRAM name's bot token (DESIGN 18): a credential, never shown (senderNameToApi masks it). */
  bot_token: string | null;
}

const COLUMNS =
  'id, account_id, channel_type, name, status, start_date, comment, manager_comment, created_at, updated_at, ' +
  'bot_token';

/**
 * Inserts a sender name; undefined when the account already has a live one of that channel and name (for TELEGRAM, in
 * any case: a bot's username is case-insensitive, migration 0040).
 */
export async function senderNameInsert(
  db: Queryable,
  row: {
    accountId: number;
    channelType: Channel;
    name: string;
    status: SenderNameStatus;
    startDate: Date | null;
    comment: string | null;
    now: Date;
  },
): Promise<SenderNameRow | undefined> {
  const [inserted] = await db.query<SenderNameRow>(
    `INSERT INTO sender_names (account_id, channel_type, name, status, start_date, comment, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT DO NOTHING
     RETURNING ${COLUMNS}`,
    [row.accountId, row.channelType, row.name, row.status, row.startDate, row.comment, row.now],
  );
  return inserted;
}

export async function senderNameGet(db: Queryable, id: number): Promise<SenderNameRow | undefined> {
  const [row] = await db.query<SenderNameRow>(
    `SELECT ${COLUMNS} FROM sender_names WHERE id = $1 AND deleted_at IS NULL`,
    [id],
  );
  return row;
}

export async function senderNameList(
  db: Queryable,
  filter: { accountId?: number | undefined; status?: SenderNameStatus | undefined; channelType?: Channel | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: SenderNameRow[]; total: number }> {
  const where = `deleted_at IS NULL
     AND ($1::bigint IS NULL OR account_id = $1)
     AND ($2::text IS NULL OR status = $2)
     AND ($3::text IS NULL OR channel_type = $3)`;
  const params = [filter.accountId ?? null, filter.status ?? null, filter.channelType ?? null];
  const rows = await db.query<SenderNameRow>(
    `SELECT ${COLUMNS} FROM sender_names WHERE ${where} ORDER BY id LIMIT $4 OFFSET $5`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM sender_names WHERE ${where}`, params);
  return { rows, total: count!.n };
}

/**
 * Whether the account has a sender name of the channel, in any status (Pending and Rejected included), not deleted.
 * A TELEGRAM name (a bot's username) is compared in any case, as Telegram compares usernames.
 */
export async function senderNameExists(
  db: Queryable,
  accountId: number,
  channelType: Channel,
  name: string,
): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM sender_names WHERE account_id = $1 AND channel_type = $2 AND deleted_at IS NULL
       AND (name = $3 OR ($2 = 'TELEGRAM' AND lower(name) = lower($3)))
     LIMIT 1`,
    [accountId, channelType, name],
  );
  return rows.length > 0;
}

/** Moves a sender name to Approved or Rejected; undefined when it does not exist. */
export async function senderNameDecide(
  db: Queryable,
  id: number,
  decision: { status: 'Approved'; startDate: Date } | { status: 'Rejected'; comment: string },
  now: Date,
): Promise<SenderNameRow | undefined> {
  const [row] = await db.query<SenderNameRow>(
    `UPDATE sender_names
     SET status = $2, start_date = $3, manager_comment = $4, updated_at = $5
     WHERE id = $1 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [
      id,
      decision.status,
      decision.status === 'Approved' ? decision.startDate : null,
      decision.status === 'Rejected' ? decision.comment : null,
      now,
    ],
  );
  return row;
}

/**
 * The one rule of which sender names may send (spec 2.2): status Approved and a start date not later than the
 * request time, and for TELEGRAM a bot token attached (DESIGN 18).
 */
const active = (now: string): string => `status = 'Approved' AND start_date <= ${now} AND deleted_at IS NULL
  AND (channel_type <> 'TELEGRAM' OR bot_token IS NOT NULL)`;

/** The account's active names of the given channels (see `active`). */
export async function senderNameActiveList(
  db: Queryable,
  accountId: number,
  channels: readonly Channel[],
  now: Date,
): Promise<{ channel_type: Channel; name: string }[]> {
  return db.query<{ channel_type: Channel; name: string }>(
    `SELECT channel_type, name FROM sender_names
     WHERE account_id = $1 AND channel_type = ANY($2::text[]) AND ${active('$3')}`,
    [accountId, channels, now],
  );
}

/** Attaches a bot token to a sender name (any channel: the caller checks it is TELEGRAM); undefined when none. */
export async function senderNameSetBotToken(
  db: Queryable,
  id: number,
  token: string,
  now: Date,
): Promise<SenderNameRow | undefined> {
  const [row] = await db.query<SenderNameRow>(
    `UPDATE sender_names SET bot_token = $2, updated_at = $3 WHERE id = $1 AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [id, token, now],
  );
  return row;
}

/** A TELEGRAM sender name with its bot token, for the Telegram connector. */
export interface SenderNameBot {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  readonly token: string;
}

const BOT_COLUMNS = 'id, account_id AS "accountId", name, bot_token AS token';

/**
 * The bot token of the account's active TELEGRAM sender name `name`, compared case-insensitively as Telegram compares
 * usernames; undefined when it has none active. Active is `active` at `now`; without `now`, Approved with a token, its
 * start date aside (a message to send was validated against it when it was accepted).
 */
export async function senderNameBotToken(
  db: Queryable,
  accountId: number,
  name: string,
  now?: Date,
): Promise<{ id: number; token: string } | undefined> {
  const [row] = await db.query<{ id: number; token: string }>(
    `SELECT id, bot_token AS token FROM sender_names
     WHERE account_id = $1 AND channel_type = 'TELEGRAM' AND lower(name) = lower($2)
       AND ${active('coalesce($3::timestamptz, start_date)')}
     ORDER BY id LIMIT 1`,
    [accountId, name, now ?? null],
  );
  return row;
}

/** Every TELEGRAM sender name with a bot token, whatever its status (deleted ones aside), in id order. */
export async function senderNameBots(db: Queryable): Promise<SenderNameBot[]> {
  return db.query<SenderNameBot>(
    `SELECT ${BOT_COLUMNS} FROM sender_names
     WHERE channel_type = 'TELEGRAM' AND bot_token IS NOT NULL AND deleted_at IS NULL ORDER BY id`,
  );
}

/**
 * Another account's TELEGRAM sender name of the bot `name` (case-insensitively) that holds a token: a bot has one
 * webhook, so its token attaches to one account only.
 */
export async function senderNameBotElsewhere(
  db: Queryable,
  name: string,
  accountId: number,
): Promise<SenderNameBot | undefined> {
  const [row] = await db.query<SenderNameBot>(
    `SELECT ${BOT_COLUMNS} FROM sender_names
     WHERE channel_type = 'TELEGRAM' AND bot_token IS NOT NULL AND deleted_at IS NULL
       AND lower(name) = lower($1) AND account_id <> $2
     ORDER BY id LIMIT 1`,
    [name, accountId],
  );
  return row;
}

/** The TELEGRAM sender name `id` with its bot token, whatever its status; undefined when it has none or is deleted. */
export async function senderNameBotById(db: Queryable, id: number): Promise<SenderNameBot | undefined> {
  const [row] = await db.query<SenderNameBot>(
    `SELECT ${BOT_COLUMNS} FROM sender_names
     WHERE id = $1 AND channel_type = 'TELEGRAM' AND bot_token IS NOT NULL AND deleted_at IS NULL`,
    [id],
  );
  return row;
}

/**
 * The WhatsApp number a WHATSAPP sender name stands for, in SQL: a name in E.164 form, with or without
 * its `+`, is that number's digits; any other name (`Shop`, `Promo 1-555-000-1111`) is only itself. The same
 * expression as the index of migration 0012, so that a lookup uses it; `whatsappNumberOf` is its JavaScript twin.
 */
const WHATSAPP_NUMBER_SQL = "CASE WHEN name ~ '^\\+?[1-9][0-9]{1,14}$' THEN ltrim(name, '+') ELSE name END";

/** The WhatsApp number a sender name stands for: see {@link WHATSAPP_NUMBER_SQL}. */
export function whatsappNumberOf(name: string): string {
  return /^\+?[1-9][0-9]{1,14}$/.test(name) ? name.replace(/^\+/, '') : name;
}

/**
 * The one approved WHATSAPP sender name that owns an inbound, matched exactly on its number: the number
 * written to wins over the connector's phone number id; among equals (names approved before one owner per number
 * was enforced), the oldest. Undefined: no account owns it.
 */
export async function senderNameWhatsappOwner(
  db: Queryable,
  numbers: readonly string[],
): Promise<{ account_id: number; name: string } | undefined> {
  if (numbers.length === 0) return undefined;
  const [row] = await db.query<{ account_id: number; name: string }>(
    `SELECT account_id, name FROM sender_names
     WHERE channel_type = 'WHATSAPP' AND status = 'Approved' AND deleted_at IS NULL
       AND ${WHATSAPP_NUMBER_SQL} = ANY($1::text[])
     ORDER BY array_position($1::text[], ${WHATSAPP_NUMBER_SQL}), id LIMIT 1`,
    [numbers],
  );
  return row;
}

/** Another account whose approved WHATSAPP sender name stands for the same number as `name`, if one has. */
export async function senderNameWhatsappOtherOwner(
  db: Queryable,
  accountId: number,
  name: string,
): Promise<{ account_id: number; name: string } | undefined> {
  const [row] = await db.query<{ account_id: number; name: string }>(
    `SELECT account_id, name FROM sender_names
     WHERE channel_type = 'WHATSAPP' AND status = 'Approved' AND deleted_at IS NULL AND ${WHATSAPP_NUMBER_SQL} = $1
       AND account_id <> $2
     ORDER BY id LIMIT 1`,
    [whatsappNumberOf(name), accountId],
  );
  return row;
}

/** Soft-deletes an account's sender name; false when there is none. */
export async function senderNameDelete(db: Queryable, accountId: number, id: number, now: Date): Promise<boolean> {
  const rows = await db.query(
    'UPDATE sender_names SET deleted_at = $3 WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id',
    [accountId, id, now],
  );
  return rows.length > 0;
}
