import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../../src/db/db.js';
import { laneSql } from '../../src/callbacks/eventSql.js';
import { destinationsInsertCte } from '../../src/messages/destinationSql.js';
import type { NewMessage } from '../../src/messages/messageSql.js';
import type { Channel } from '../../src/shared/channels.js';
import { uuid7 } from '../../src/util/uuid7.js';

/**
 * Row factories: rows written straight into the tables, with every field optional, so that SQL-level tests start
 * from exactly the state they need without going through the API.
 */

export interface AccountFields {
  readonly name?: string;
  readonly currency?: string;
  readonly balance?: number;
  readonly now?: Date;
}

/** An account, with an opening balance in its currency when one is given. */
export async function insertAccount(
  db: Queryable,
  fields: AccountFields = {},
): Promise<{ id: number; currency: string }> {
  const currency = fields.currency ?? 'RUB';
  const now = fields.now ?? new Date('2026-03-10T09:00:00Z');
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO accounts (name, currency, callback_secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     RETURNING id`,
    [fields.name ?? 'Factory account', currency, randomBytes(16).toString('hex'), now],
  );
  if (fields.balance !== undefined) {
    await db.query(
      `WITH entry AS (INSERT INTO balance_ledger (account_id, currency, amount, kind, created_at)
         VALUES ($1, $2, $3, 'adjustment', $4))
       INSERT INTO account_balances (account_id, currency, amount, updated_at) VALUES ($1, $2, $3, $4)`,
      [row!.id, currency, fields.balance, now],
    );
  }
  return { id: row!.id, currency };
}

/** A callback URL of an account (a callback target), as messages with that callbackUrl point to. */
export async function insertCallbackTarget(
  db: Queryable,
  accountId: number,
  url: string,
  now = new Date(),
): Promise<number> {
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO callback_targets (account_id, url, created_at, used_at) VALUES ($1, $2, $3, $3)
     ON CONFLICT (account_id, url) DO UPDATE SET url = excluded.url RETURNING id`,
    [accountId, url, now],
  );
  return row!.id;
}

export interface MessageFields {
  readonly accountId: number;
  readonly id?: string;
  readonly channel?: Channel;
  readonly senderName?: string;
  readonly destination?: string;
  readonly content?: unknown;
  readonly status?: string;
  readonly readStatus?: string | null;
  readonly createdAt?: Date;
  /** When it is due: by default its planned send time. */
  readonly dueAt?: Date | 'infinity' | null;
  readonly plannedSendAt?: Date | null;
  readonly deadlineAt?: Date;
  readonly expiresAt?: Date;
  readonly ttl?: number | null;
  readonly hours?: number[] | null;
  readonly days?: number[] | null;
  readonly useLocalTime?: boolean;
  readonly localSendTime?: string | null;
  readonly localCompletionTime?: string | null;
  readonly totalParts?: number;
  readonly price?: number;
  readonly currency?: string;
  readonly priceFinal?: boolean;
  readonly callbackTargetId?: number | null;
  readonly callbackEvents?: string[] | null;
  readonly templateId?: number | null;
  readonly country?: string | null;
  readonly trafficType?: string;
}

const DAY_MS = 86_400_000;

/**
 * A message row, by default an SMS in `sending` due at once with a 25-hour lifetime; its reserved price is not taken
 * from a balance (tests of refunds give the account a balance that covers it).
 */
export async function insertMessage(db: Queryable, f: MessageFields): Promise<string> {
  const created = f.createdAt ?? new Date('2026-03-10T09:00:00Z');
  const id = f.id ?? uuid7(created.getTime());
  const planned = f.plannedSendAt === undefined ? created : f.plannedSendAt;
  const expires = f.expiresAt ?? new Date((planned ?? created).getTime() + (f.ttl ?? 90_000) * 1000);
  const status = f.status ?? 'sending';
  await db.query(
    // With its destination, as Herald stores it (the list's search by destination).
    `WITH inserted AS (
       INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, country, content,
         total_parts, status, status_at, read_status, planned_send_at, due_at, deadline_at, expires_at, ttl, hours,
         days, use_local_time, local_send_time, local_completion_time, price, currency, price_final,
         callback_target_id, callback_events, template_id, history, traffic_type)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $3, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
         $22, $23, $24, $25, $26, $27, $28, $29)
       RETURNING account_id, id, destination
     ),
     ${destinationsInsertCte('inserted')}
     SELECT 1`,
    [
      f.accountId,
      id,
      created,
      f.channel ?? 'SMS',
      f.senderName ?? 'Herald',
      f.destination ?? '79161234560',
      f.country === undefined ? 'RU' : f.country,
      JSON.stringify(f.content ?? 'factory message'),
      f.totalParts ?? 1,
      status,
      f.readStatus ?? null,
      planned,
      f.dueAt === undefined ? (status === 'sending' ? (planned ?? created) : null) : f.dueAt,
      f.deadlineAt ?? new Date(Math.min(expires.getTime(), created.getTime() + 70 * DAY_MS)),
      expires,
      f.ttl ?? null,
      f.hours ?? null,
      f.days ?? null,
      f.useLocalTime ?? true,
      f.localSendTime ?? null,
      f.localCompletionTime ?? null,
      f.price ?? 0,
      f.currency ?? 'RUB',
      f.priceFinal ?? status !== 'sending',
      f.callbackTargetId ?? null,
      f.callbackEvents ?? null,
      f.templateId ?? null,
      // As Herald stores it: an outbound message's first entry (sending, at its creation) is implied (historyOf).
      '[]',
      f.trafficType ?? 'SERVICE',
    ],
  );
  return id;
}

export interface CallbackEventFields {
  readonly targetId: number;
  readonly accountId: number;
  readonly messageId?: string;
  /** By default the message's own lane, as Herald puts it. */
  readonly lane?: number;
  readonly event?: string;
  readonly channel?: Channel;
  readonly status?: string | null;
  readonly at?: Date;
  readonly errorCode?: number | null;
  readonly extra?: unknown;
}

/** Where an event lies in its lane: its transaction id (as text, an xid8) and its id. */
export interface EventRow {
  readonly lane: number;
  readonly txid: string;
  readonly id: number;
  readonly messageId: string;
}

/** A callback event (an outbox row), by default a `delivered` status event of a new message, in its message's lane. */
export async function insertCallbackEvent(db: Queryable, f: CallbackEventFields): Promise<EventRow> {
  const messageId = f.messageId ?? randomUUID();
  const [row] = await db.query<{ lane: number; txid: string; id: number }>(
    `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at, error_code,
       extra)
     VALUES ($1, coalesce($2::smallint, ${laneSql('$3::uuid')}), $4, $3, $5, $6, $7, $8, $9, $10)
     RETURNING lane, txid::text AS txid, id`,
    [
      f.targetId,
      f.lane ?? null,
      messageId,
      f.accountId,
      f.event ?? 'delivered',
      f.channel ?? 'SMS',
      f.status === undefined ? 'delivered' : f.status,
      f.at ?? new Date('2026-03-10T09:00:00Z'),
      f.errorCode ?? null,
      f.extra === undefined ? null : JSON.stringify(f.extra),
    ],
  );
  return { ...row!, messageId };
}

/** A position in a lane: after every event up to it. The start of a lane is `{ txid: '0', id: 0 }`. */
export interface LanePosition {
  readonly txid: string;
  readonly id: number;
}

export interface CallbackDeliveryFields {
  readonly accountId: number;
  /** By default a new callback URL of the account: a delivery of its own, free of the one-per-lane rule. */
  readonly targetId?: number;
  readonly id?: string;
  readonly lane?: number;
  /** Its range of events: after `after`, up to and including `last` (by default empty, at the start of the lane). */
  readonly after?: LanePosition;
  readonly last?: LanePosition;
  readonly events?: number;
  readonly onlyMessages?: string[] | null;
  readonly excludedMessages?: string[] | null;
  readonly state?: 'open' | 'delivered' | 'failed';
  readonly replay?: boolean;
  readonly attempts?: number;
  readonly nextAttemptAt?: Date;
  readonly createdAt?: Date;
}

/** A callback delivery, by default open, never attempted and due at its creation. */
export async function insertCallbackDelivery(
  db: Queryable,
  f: CallbackDeliveryFields,
): Promise<{ id: string; targetId: number }> {
  const created = f.createdAt ?? new Date('2026-03-10T09:00:00Z');
  const id = f.id ?? randomUUID();
  const targetId = f.targetId ?? (await insertCallbackTarget(db, f.accountId, `http://127.0.0.1:9/${id}`, created));
  const start: LanePosition = { txid: '0', id: 0 };
  const state = f.state ?? 'open';
  await db.query(
    `INSERT INTO callback_deliveries (id, account_id, target_id, lane, after_txid, after_event_id, last_txid,
       last_event_id, only_messages, excluded_messages, events, state, replay, attempts, next_attempt_at,
       window_started_at, created_at, finished_at)
     VALUES ($1, $2, $3, $4, $5::xid8, $6, $7::xid8, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17)`,
    [
      id,
      f.accountId,
      targetId,
      f.lane ?? 0,
      (f.after ?? start).txid,
      (f.after ?? start).id,
      (f.last ?? f.after ?? start).txid,
      (f.last ?? f.after ?? start).id,
      f.onlyMessages ?? null,
      f.excludedMessages ?? null,
      f.events ?? 1,
      state,
      f.replay ?? false,
      f.attempts ?? 0,
      f.nextAttemptAt ?? created,
      created,
      state === 'open' ? null : created,
    ],
  );
  return { id, targetId };
}

/** A new SMS as the API hands it to messageInsertBatch: due at `when`, for a day, free. */
export function newMessage(
  id: string,
  when: Date,
  fields: { destination?: string; region?: string | null; content?: string; cascade?: NewMessage['cascade'] } = {},
): NewMessage {
  return {
    id,
    message: {
      channelType: 'SMS',
      senderName: 'Shop',
      destination: fields.destination ?? '79161234567',
      country: 'RU',
      content: fields.content ?? 'Hello',
      tags: [],
      useLocalTime: false,
      localSendTime: null,
      localCompletionTime: null,
      ttl: null,
      hours: null,
      days: null,
      shortUrl: false,
      callbackUrl: null,
      callbackEvents: null,
      externalMessageId: null,
      totalParts: 1,
      trafficType: 'SERVICE',
    },
    subscriber: { country: 'RU', region: fields.region ?? null, brand: null, zones: ['Europe/Moscow'] },
    plannedSendAt: when,
    deadlineAt: new Date(when.getTime() + 86_400_000),
    expiresAt: new Date(when.getTime() + 86_400_000),
    leased: false,
    price: '0',
    currency: 'RUB',
    callbackTargetId: null,
    templateId: null,
    cascade: fields.cascade,
  };
}
