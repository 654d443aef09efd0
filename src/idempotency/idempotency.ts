import { createHash } from 'node:crypto';
import type { Db, Queryable } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import {
  idempotencyAppend,
  idempotencyBegin,
  idempotencyComplete,
  idempotencyGet,
  idempotencyHold,
  type IdempotencyKey,
  idempotencyPut,
  type IdempotencyRow,
} from './idempotencySql.js';

/** How long a key's first response is replayed. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentResult<T> {
  readonly statusCode: number;
  readonly body: T;
  /** True when this is the stored answer to an earlier request with the same key. */
  readonly replayed: boolean;
}

/** Reads and checks the `Idempotency-Key` header: 1 to 255 printable ASCII characters. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY.test(header)) throw herald('invalidIdempotencyKey');
  return header;
}

/**
 * The hash a key's request is compared by: of the body as a JSON value, so that the same objects with
 * their keys in another order are the same request. Arrays keep their order: a batch in another order is another
 * batch (its items answer in request order).
 */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('base64url');
}

/**
 * The hash of the body's text as JSON.stringify wrote it, which keys recorded before canonical hashing carry. Still
 * accepted, so that a client retrying across an upgrade gets its first answer rather than a 409 (the keys live
 * 24 hours: this can go one release later).
 */
function legacyRequestHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/** JSON with every object's keys sorted (by code unit), arrays in order, undefined members left out as JSON does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

class LostRace extends Error {}

export interface IdempotentRequest {
  readonly accountId: number;
  readonly operation: string;
  readonly key: string | undefined;
  readonly body: unknown;
  readonly now: Date;
}

/**
 * The stored answer to an earlier request with the same key and body, if there is one within 24 hours; the same
 * key with another body is 409 4090. Call before validating, so that a retried request gets its first answer even
 * when validating it again would now fail.
 */
export async function idempotentReplay<T>(
  db: Queryable,
  request: IdempotentRequest,
): Promise<IdempotentResult<T> | undefined> {
  if (request.key === undefined) return undefined;
  const since = new Date(request.now.getTime() - IDEMPOTENCY_WINDOW_MS);
  const stored = await idempotencyGet(
    db,
    { accountId: request.accountId, operation: request.operation, key: request.key },
    since,
  );
  if (!stored) return undefined;
  return replayOf<T>(stored, request, request.key);
}

/**
 * A stored record's answer: 409 4090 for another body, or while a batch stored in slices holds the key; undefined
 * for such a batch's key once its attempt's time is over (the batch resumes: {@link runIdempotentInSlices}).
 */
function replayOf<T>(stored: IdempotencyRow, request: IdempotentRequest, key: string): IdempotentResult<T> | undefined {
  if (stored.request_hash !== requestHash(request.body) && stored.request_hash !== legacyRequestHash(request.body)) {
    throw herald('idempotencyConflict', { key });
  }
  if (stored.pending_until !== null) {
    if (stored.pending_until.getTime() > request.now.getTime()) throw herald('idempotencyInProgress', { key });
    return undefined;
  }
  return { statusCode: stored.status_code, body: stored.response as T, replayed: true };
}

/**
 * Runs `work` in one transaction and, with a key, records its response in the same transaction, so that a response
 * is stored if and only if its work committed. When two requests with one key race, the loser's transaction is
 * rolled back and it answers the winner's response.
 */
export async function runIdempotent<T>(
  db: Db,
  request: IdempotentRequest,
  work: (tx: Queryable) => Promise<{ statusCode: number; body: T }>,
): Promise<IdempotentResult<T>> {
  try {
    const result = await db.transaction(async (tx) => {
      const done = await work(tx);
      await idempotentRecord(tx, request, done);
      return done;
    });
    return { ...result, replayed: false };
  } catch (error) {
    return idempotentAfterRace<T>(db, request, error);
  }
}

/**
 * For work whose transaction is not {@link runIdempotent}'s (a cascade's start): records the response under the
 * request's key in `tx` (without a key, nothing). A first attempt of the same key that committed meanwhile makes it
 * throw: the caller's transaction rolls back, and {@link idempotentAfterRace} answers with the winner's response.
 */
export async function idempotentRecord(
  tx: Queryable,
  request: IdempotentRequest,
  done: { readonly statusCode: number; readonly body: unknown },
): Promise<void> {
  if (request.key === undefined) return;
  const recorded = await idempotencyPut(tx, {
    accountId: request.accountId,
    operation: request.operation,
    key: request.key,
    requestHash: requestHash(request.body),
    statusCode: done.statusCode,
    response: done.body,
    now: request.now,
    expiredBefore: new Date(request.now.getTime() - IDEMPOTENCY_WINDOW_MS),
  });
  if (!recorded) throw new LostRace();
}

/** After a transaction that threw: the winner's response when it lost a race for its key, else the error again. */
export async function idempotentAfterRace<T>(
  db: Queryable,
  request: IdempotentRequest,
  error: unknown,
): Promise<IdempotentResult<T>> {
  if (!(error instanceof LostRace)) throw error;
  const winner = await idempotentReplay<T>(db, request);
  if (!winner) throw error;
  return winner;
}

/**
 * How long an attempt at a batch stored in slices holds its key after its latest slice: a retry before then is
 * answered 409 4090 (in progress), one after it resumes the batch. A slice of 512 KiB commits in well under a second
 * (15-50 ms measured, up to 0.5 s on a loaded machine); a minute leaves room and keeps a dead process's batch
 * waiting no longer than that.
 */
export const SLICE_LEASE_MS = 60_000;

/** A batch stored in several transactions: see {@link runIdempotentInSlices}. */
export interface Slices<Item, T> {
  /** Where each slice ends (exclusive), ascending; the last is the batch's length. */
  readonly ends: readonly number[];
  /** Stores the items [start, end) in `tx`; returns their items of the answer, in order. */
  store(tx: Queryable, start: number, end: number): Promise<Item[]>;
  /** After a slice's commit (hands its messages to the submitter). */
  committed(): void;
  /** The answer of the whole batch, from its items in order. */
  respond(items: Item[]): { statusCode: number; body: T };
  /** The current time: each slice renews the key's hold from it. */
  now(): Date;
}

/**
 * Stores a batch in one short transaction per slice, so that other accounts' transactions run between them (PGlite
 * runs one at a time). Without a key, a batch cut by a crash stays partly stored. With a key, the key is recorded
 * first as pending (its own transaction), each slice's items are appended to it in the slice's transaction, and the
 * whole answer is written at the end: a retry with the same key and body gets 409 4090 while an attempt holds the key
 * ({@link SLICE_LEASE_MS} after its latest slice, or until it fails), then resumes after the items already stored
 * (creating only the rest) and answers the whole batch; once complete, the answer is replayed as any other.
 */
export async function runIdempotentInSlices<Item, T>(
  db: Db,
  request: IdempotentRequest,
  slices: Slices<Item, T>,
): Promise<IdempotentResult<T>> {
  const { key } = request;
  const items: Item[] = [];
  if (key === undefined) {
    for (const [start, end] of rangesFrom(slices.ends, 0)) {
      items.push(...(await db.transaction((tx) => slices.store(tx, start, end))));
      slices.committed();
    }
    return { ...slices.respond(items), replayed: false };
  }
  const record = { accountId: request.accountId, operation: request.operation, key };
  const begun = await db.transaction((tx) => beginSlices<T>(tx, request, record));
  if (!Array.isArray(begun)) return begun;
  items.push(...(begun as Item[]));
  try {
    for (const [start, end] of rangesFrom(slices.ends, items.length)) {
      const stored = await db.transaction(async (tx) => {
        const slice = await slices.store(tx, start, end);
        const held = new Date(slices.now().getTime() + SLICE_LEASE_MS);
        if (!(await idempotencyAppend(tx, record, start, slice, held))) throw new LostRace();
        return slice;
      });
      items.push(...stored);
      slices.committed();
    }
    const done = slices.respond(items);
    await idempotencyComplete(db, record, done.statusCode, done.body);
    return { ...done, replayed: false };
  } catch (error) {
    // Another attempt at the key stored this slice first: it goes on with the batch.
    if (error instanceof LostRace) throw herald('idempotencyInProgress', { key });
    // A retry need not wait for the hold to pass: it resumes at once. Best effort: if the database is what failed,
    // the hold passes by itself.
    await idempotencyHold(db, record, slices.now()).catch(() => undefined);
    throw error;
  }
}

/** The key's record for a batch in slices: the items already stored (none for a new one), or the stored answer. */
async function beginSlices<T>(
  tx: Queryable,
  request: IdempotentRequest,
  record: IdempotencyKey,
): Promise<unknown[] | IdempotentResult<T>> {
  const since = new Date(request.now.getTime() - IDEMPOTENCY_WINDOW_MS);
  const held = new Date(request.now.getTime() + SLICE_LEASE_MS);
  const stored = await idempotencyGet(tx, record, since, 'lock');
  if (stored) {
    const replay = replayOf<T>(stored, request, record.key);
    if (replay) return replay;
    await idempotencyHold(tx, record, held);
    return stored.response as unknown[];
  }
  const begun = await idempotencyBegin(tx, {
    ...record,
    requestHash: requestHash(request.body),
    now: request.now,
    pendingUntil: held,
    expiredBefore: since,
  });
  if (!begun) throw herald('idempotencyInProgress', { key: record.key });
  return [];
}

/** The slices [start, end) still to store after the first `done` items. */
function rangesFrom(ends: readonly number[], done: number): [number, number][] {
  const ranges: [number, number][] = [];
  let start = done;
  for (const end of ends) {
    if (end <= start) continue;
    ranges.push([start, end]);
    start = end;
  }
  return ranges;
}
