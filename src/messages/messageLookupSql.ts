import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { messageApplyTransitions } from './transitionSql.js';
import { messageClaimsHold, messageLeasedSql } from './claimSql.js';
import { messageColumns, type MessageRow } from './messageObject.js';
import { statusTransition } from './transitions.js';
import { destinationCondition } from './destinationSql.js';
import { messageIdSpan } from './messagePartitions.js';
import { DAY_MS } from '../util/time.js';
import { uuidBound } from '../util/uuid7.js';

/** What a message's object reads, of `messages m`. */
const COLUMNS = messageColumns('m');

export async function messageGet(db: Queryable, accountId: number, id: string): Promise<MessageRow | undefined> {
  const [row] = await db.query<MessageRow>(`SELECT ${COLUMNS} FROM messages m WHERE m.account_id = $1 AND m.id = $2`, [
    accountId,
    id,
  ]);
  return row;
}

/**
 * Which of the given ids are the account's outbound FLASHCALL messages (those a conversion may be reported for), with
 * their destinations.
 */
export async function messageOutboundFlashcallIds(
  db: Queryable,
  accountId: number,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const rows = await db.query<{ id: string; destination: string }>(
    `SELECT id, destination FROM messages
     WHERE account_id = $1 AND id = ANY($2::uuid[]) AND channel_type = 'FLASHCALL' AND direction = 'outbound'`,
    [accountId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.destination]));
}

/** What a receipt or an MO deliver_sm says of its message (smppServer/). */
export interface MessageReceiptFacts {
  readonly direction: 'outbound' | 'inbound';
  readonly created_at: Date;
  readonly sender_name: string;
  readonly destination: string;
  readonly content: unknown;
}

/**
 * The receipt facts of messages by key (account, id), by id; a message retention removed is not in it. Bounded by
 * the span of the ids (messageIdSpan): found by key alone, the read planned every partition kept, 6 ms a call after
 * a year of weeks against 0.6 on the first day. One primary key probe a key (the LIMIT keeps the lateral a loop):
 * joined, the planner read and hashed every message of the span, every account's of those minutes (6,400 rows for
 * 1,585 keys in the SMPP benchmark, where one account sends), a cost that grew with the other accounts' traffic.
 */
export async function messageReceiptFacts(
  db: Queryable,
  keys: readonly { readonly account_id: number; readonly message_id: string }[],
): Promise<Map<string, MessageReceiptFacts>> {
  if (keys.length === 0) return new Map();
  const [from, to] = messageIdSpan(keys.map((k) => ({ id: k.message_id })));
  const rows = await db.query<MessageReceiptFacts & { id: string }>(
    `SELECT m.*
     FROM unnest($1::bigint[], $2::uuid[]) AS k(account_id, id)
     CROSS JOIN LATERAL (
       SELECT m.id, m.direction, m.created_at, m.sender_name, m.destination, m.content FROM messages m
       WHERE m.account_id = k.account_id AND m.id = k.id AND m.id BETWEEN $3 AND $4
       LIMIT 1
     ) m`,
    [keys.map((k) => k.account_id), keys.map((k) => k.message_id), from, to],
  );
  return new Map(rows.map(({ id, ...facts }) => [id, facts]));
}

/** Filters of GET /api/v1/message, already checked. */
export interface MessageFilter {
  readonly fromId: string | null;
  readonly toId: string | null;
  readonly messageUuid: string | null;
  readonly destination: string | null;
  readonly status: string | null;
  readonly tags: string[] | null;
  readonly channelType: string | null;
  readonly senderName: string | null;
  readonly trafficCenterId: number | null;
  /** null: both directions (the list itself always gives one). */
  readonly direction: string | null;
  readonly content: string | null;
  /** Every value given must equal read_status (none given: no filter). */
  readonly readStatus: readonly string[];
  readonly sendingMethod: string | null;
  readonly templateId: number | null;
  readonly country: string | null;
  /** Steps of this cascade (its root's id). */
  readonly cascadeId: string | null;
  /** true: first steps and messages outside cascades; false: later steps of cascades. */
  readonly root: boolean | null;
  readonly trafficType: string | null;
  readonly dispatchId: string | null;
  /** Messages with this error code (Herald's own or a carrier's). */
  readonly errorCode: number | null;
}

/**
 * The texts the `content` filter searches, of `messages m` (the text, not the stored JSON): a string content itself;
 * of an object content its text, caption, media names, header text and document name, footer text and button texts.
 */
const CONTENT_TEXTS = `CASE WHEN jsonb_typeof(m.content) = 'string' THEN ARRAY[m.content #>> '{}'] ELSE
    ARRAY[m.content ->> 'text', m.content ->> 'caption', m.content ->> 'imageName', m.content ->> 'documentName',
      m.content #>> '{header,text}', m.content #>> '{header,documentName}', m.content #>> '{footer,text}']
    || ARRAY(SELECT b ->> 'text' FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(m.content -> 'buttons') = 'array' THEN m.content -> 'buttons' ELSE '[]'::jsonb END) AS b)
  END`;

/**
 * The WHERE clause of the list and its count, with only the conditions of the filters given (the count reads every
 * matching row of the account: a condition per filter not given, `$n IS NULL OR ...`, cost 20-30 % on 1,000,000
 * messages), and its parameters: added to `params`, numbered after those already there.
 */
function whereOf(accountId: number, f: MessageFilter, params: unknown[] = []): { where: string; params: unknown[] } {
  params.push(accountId);
  const account = `$${params.length}`;
  const conditions = [`m.account_id = ${account}`];
  const add = (value: unknown, condition: (p: string) => string): void => {
    if (value === null) return;
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  // Time bounds are id bounds: ids are version 7 UUIDs, whose first 48 bits are the creation time.
  add(f.fromId, (p) => `m.id >= ${p}::uuid`);
  add(f.toId, (p) => `m.id <= ${p}::uuid`);
  add(f.messageUuid, (p) => `m.id = ${p}::uuid`);
  // Through message_destinations (by its index of account and destination; migrations 0057 and 0058).
  add(f.destination, (p) => `${destinationCondition('m', account, p)} AND m.destination = ${p}`);
  add(f.status, (p) => `m.status = ${p}`);
  add(f.tags, (p) => `m.tags && ${p}::text[]`);
  add(f.channelType, (p) => `m.channel_type = ${p}`);
  add(f.senderName, (p) => `m.sender_name = ${p}`);
  add(f.trafficCenterId, (p) => `m.traffic_center_id = ${p}::bigint`);
  add(f.direction, (p) => `m.direction = ${p}`);
  add(f.content, (p) => `EXISTS (SELECT 1 FROM unnest(${CONTENT_TEXTS}) AS t(text) WHERE strpos(t.text, ${p}) > 0)`);
  for (const readStatus of f.readStatus) add(readStatus, (p) => `m.read_status = ${p}`);
  add(f.sendingMethod, (p) => `m.sending_method = ${p}`);
  add(f.templateId, (p) => `m.template_id = ${p}::bigint`);
  add(f.country, (p) => `m.country = ${p}`);
  add(f.cascadeId, (p) => `m.cascade_id = ${p}::uuid`);
  add(f.root, (p) => `(coalesce(m.cascade_step, 1) = 1) = ${p}::boolean`);
  add(f.trafficType, (p) => `m.traffic_type = ${p} AND m.direction = 'outbound'`);
  add(f.dispatchId, (p) => `m.dispatch_id = ${p}::uuid`);
  add(f.errorCode, (p) => `m.error_code = ${p}::integer`);
  return { where: conditions.join(' AND '), params };
}

/**
 * How far back a newest-first page looks before it reads every week: a page of a busy account is there, and the
 * statement then plans the partitions of that span alone instead of every week kept (4.7-7.2 ms of planning a page
 * after a year of weekly partitions, against 0.5 on the first day: bench/claimPlanning.ts).
 */
export const LIST_RECENT_MS = 7 * DAY_MS;

/**
 * A page of the account's messages that pass the filter, by id (creation time) in `order`. Given `now`, a
 * newest-first page without a lower time bound is looked for in the last {@link LIST_RECENT_MS} first: the messages
 * of that span come first in that order, so a page found whole among them is the page of the whole list; else the
 * whole list is read.
 */
export async function messageList(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  order: 'asc' | 'desc',
  limit: number,
  offset: number,
  now?: Date,
): Promise<MessageRow[]> {
  const page = (f: MessageFilter): Promise<MessageRow[]> => {
    const { where, params } = whereOf(accountId, f);
    return db.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages m WHERE ${where}
       ORDER BY m.id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
  };
  if (now !== undefined && order === 'desc' && filter.fromId === null && limit > 0) {
    const recent = uuidBound(now.getTime() - LIST_RECENT_MS, 'low');
    if (filter.toId === null || filter.toId >= recent) {
      const rows = await page(Object.assign({}, filter, { fromId: recent }));
      if (rows.length === limit) return rows;
    }
  }
  return page(filter);
}

/** An id range of a list count: its low and high ids, inclusive (null: open). */
export type IdRange = readonly [low: string | null, high: string | null];

/**
 * How many messages pass the filter within the given id ranges (by default the filter's own time bounds): one
 * statement whatever the number of ranges, each range a scan of the primary key (or of an index of the filter).
 */
export async function messageListCount(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  ranges: readonly IdRange[] = [[filter.fromId, filter.toId]],
): Promise<number> {
  if (ranges.length === 0) return 0;
  const params: unknown[] = [];
  const counts = ranges.map(([fromId, toId]) =>
    countSql(accountId, Object.assign({}, filter, { fromId, toId }), params),
  );
  const [row] = await db.query<{ n: number }>(`SELECT ${counts.join(' + ')} AS n`, params);
  return row!.n;
}

/** A count of the messages that pass the filter, as an SQL expression; its parameters are added to `params`. */
function countSql(accountId: number, filter: MessageFilter, params: unknown[]): string {
  if (filter.direction === 'outbound') {
    // All the account's matching messages less its inbound ones (a partial index), so that no row's direction is
    // tested: the default list counts as fast as a list with no direction filter.
    const all = whereOf(accountId, Object.assign({}, filter, { direction: null }), params);
    const inbound = whereOf(accountId, Object.assign({}, filter, { direction: 'inbound' as const }), params);
    return `((SELECT count(*) FROM messages m WHERE ${all.where})
      - (SELECT count(*) FROM messages m WHERE ${inbound.where}))`;
  }
  return `(SELECT count(*) FROM messages m WHERE ${whereOf(accountId, filter, params).where})`;
}

/** A message a stop found: its status before, whether it was being handed to a carrier, whether it was stopped. */
export interface StopOutcome {
  readonly id: string;
  readonly status: string;
  readonly leased: boolean;
  readonly stopped: boolean;
  /** For a step of a cascade: its cascade, and the outcome for its later steps that exist (the latest first). */
  readonly cascadeId: string | null;
  readonly later: readonly { readonly status: string; readonly leased: boolean; readonly stopped: boolean }[];
}

/**
 * Stops messages of an account (POST /api/v1/message/stop): those still waiting in the queue become unsent, with
 * their callback event and refund, like any unsent message; so do the later steps of a cascade whose step is
 * stopped. Returns, for each message found, its status before, whether it was being handed to a carrier (leased),
 * and whether it was stopped. Call in a transaction: the rows are locked (in the global order of message locks)
 * while they are looked at, so that no worker claims one in between.
 */
export async function messageStop(
  tx: Queryable,
  accountId: number,
  ids: readonly string[],
  now: Date,
  errorCode: number,
): Promise<StopOutcome[]> {
  // A message a claim is taking is in a worker's hands: its record is seen once the claim commits.
  await messageClaimsHold(tx);
  const current = await tx.query<{
    id: string;
    status: string;
    leased: boolean;
    cascade_id: string | null;
    cascade_step: number | null;
    given: boolean;
  }>(
    // The later steps are looked up through the cascade index, and all ids read by key: an OR with EXISTS here
    // made the planner scan every message of the account (a check of a code slowed as the account grew).
    `WITH given AS (SELECT cascade_id, cascade_step FROM messages WHERE account_id = $1 AND id = ANY($2::uuid[])),
     later AS (
       SELECT m.id FROM given g
       JOIN messages m ON m.account_id = $1 AND m.cascade_id = g.cascade_id AND m.cascade_step > g.cascade_step
     )
     SELECT id, status, ${messageLeasedSql('messages', '$3')} AS leased, cascade_id, cascade_step,
       id = ANY($2::uuid[]) AS given
     FROM messages
     WHERE account_id = $1 AND id = ANY(ARRAY(SELECT id FROM later) || $2::uuid[])
     ORDER BY id FOR UPDATE`,
    [accountId, ids, now],
  );
  const stoppable = current.filter((c) => c.status === 'sending' && !c.leased);
  const unmoved = await messageApplyTransitions(
    tx,
    stoppable.map((c) =>
      statusTransition({ accountId, id: c.id, status: 'unsent', at: now, errorCode, detail: 'stopped by the client' }),
    ),
  );
  const outcome = (c: (typeof current)[number]) => ({
    status: c.status,
    leased: c.leased,
    stopped: stoppable.includes(c) && !unmoved.has(c.id),
  });
  return current
    .filter((c) => c.given)
    .map((c) => ({
      id: c.id,
      ...outcome(c),
      cascadeId: c.cascade_id,
      later: current
        .filter((l) => c.cascade_id !== null && l.cascade_id === c.cascade_id && l.cascade_step! > c.cascade_step!)
        .sort((a, b) => b.cascade_step! - a.cascade_step!)
        .map(outcome),
    }));
}

/** The steps of a cascade (its messages), in order. */
export async function messageCascadeSteps(db: Queryable, accountId: number, cascadeId: string): Promise<MessageRow[]> {
  return db.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages m WHERE m.account_id = $1 AND m.cascade_id = $2
     ORDER BY m.cascade_step`,
    [accountId, cascadeId],
  );
}

export interface CascadeChannelCount {
  label: string;
  channel_type: Channel;
  /** Cascades whose first step went on this channel. */
  firsts: number;
  /** Steps on this channel that left Herald (not `unsent`). */
  steps: number;
}

/**
 * Per label and channel, over the account's cascades given with a label each (verify/: the verifier, and the hour
 * of a code): how many began on the channel and how many of their steps on it left Herald.
 */
export async function messageCascadeChannelCounts(
  db: Queryable,
  accountId: number,
  cascades: readonly { id: string; label: string }[],
): Promise<CascadeChannelCount[]> {
  if (cascades.length === 0) return [];
  return db.query<CascadeChannelCount>(
    `SELECT c.label, m.channel_type,
       count(*) FILTER (WHERE m.cascade_step = 1)::int AS firsts,
       count(*) FILTER (WHERE m.status <> 'unsent')::int AS steps
     FROM unnest($2::uuid[], $3::text[]) AS c(id, label)
     JOIN messages m ON m.account_id = $1 AND m.cascade_id = c.id
     GROUP BY c.label, m.channel_type`,
    [accountId, cascades.map((c) => c.id), cascades.map((c) => c.label)],
  );
}
