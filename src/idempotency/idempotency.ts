import { createHash } from 'node:crypto';
import type { Db, Queryable } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import { idempotencyGet, idempotencyPut } from './idempotencySql.js';

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
  if (stored.request_hash !== requestHash(request.body) && stored.request_hash !== legacyRequestHash(request.body)) {
    throw herald('idempotencyConflict', { key: request.key });
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
  const { key } = request;
  if (key === undefined) {
    const result = await db.transaction(work);
    return { ...result, replayed: false };
  }
  try {
    const result = await db.transaction(async (tx) => {
      const done = await work(tx);
      const recorded = await idempotencyPut(tx, {
        accountId: request.accountId,
        operation: request.operation,
        key,
        requestHash: requestHash(request.body),
        statusCode: done.statusCode,
        response: done.body,
        now: request.now,
        expiredBefore: new Date(request.now.getTime() - IDEMPOTENCY_WINDOW_MS),
      });
      if (!recorded) throw new LostRace();
      return done;
    });
    return { ...result, replayed: false };
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    const winner = await idempotentReplay<T>(db, request);
    if (!winner) throw error;
    return winner;
  }
}
