import { lockAccount } from '../db/accountLocks.js';
import type { Db, Queryable } from '../db/db.js';
import { DAY_MS } from '../util/time.js';
import {
  callbackTargetsExpire,
  callbackTargetsInsert,
  callbackTargetsRecheckUsedBefore,
  callbackTargetsTouch,
  EXPIRY_START,
  type ExpiryPosition,
} from './targetSql.js';

/**
 * A callback URL unused for this long, with nothing left to send, loses its lanes' cursors, and goes altogether once
 * nothing refers to it any more (see {@link expireCallbackTargets}).
 */
export const CALLBACK_TARGET_IDLE_MS = DAY_MS;

/**
 * How long a process uses a URL's target id without asking the database, counted from the last use the database
 * had recorded: an hour, far within {@link CALLBACK_TARGET_IDLE_MS}, so that no process still holds the id of a
 * target the expiry deleted (23 hours to spare for clocks that disagree), and a URL in use has its last use
 * recorded about twice an hour.
 */
export const CALLBACK_TARGET_TRUST_MS = 3_600_000;

/**
 * URLs whose target ids a process keeps: 10,000, some 20 MB at the longest URLs (2,048 characters), 2 MB at 100.
 * Past it the least recently used are forgotten; a URL used once (a unique URL per message) is never kept.
 */
export const KNOWN_TARGETS_MAX = 10_000;

/**
 * Callback URLs as targets: one row per account and URL, created on first use, so a process remembers the ids it
 * has seen and asks the database only for new URLs (and, once an hour, for those it knows). An account may create at
 * most `perDay` new URLs a UTC day (0: no limit): each costs a row, and forming callbacks for ten thousand of them
 * once cost a core. Targets expire once idle (see {@link expireCallbackTargets}); a URL used again after its target
 * went gets a new one.
 */
export class CallbackTargets {
  /** By account and URL, the least recently used first: the id and until when it may be used without asking. */
  private readonly known = new Map<string, { id: number; until: number }>();

  constructor(
    private readonly perDay = 0,
    private readonly max = KNOWN_TARGETS_MAX,
  ) {}

  /**
   * The target ids of the URLs, created where missing. URLs over the account's daily limit of new URLs are left
   * out of the answer (in the order given: the first ones are created); `limited: false` lifts the limit (URLs
   * the operator's rules name). Marks the URLs used (which keeps their targets from expiring), in the caller's
   * transaction.
   */
  async resolve(
    tx: Queryable,
    accountId: number,
    urls: Iterable<string>,
    now: Date,
    options: { limited?: boolean } = {},
  ): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const missing: string[] = [];
    for (const url of new Set(urls)) {
      const id = this.recall(accountId, url, now);
      if (id === undefined) missing.push(url);
      else result.set(url, id);
    }
    if (missing.length === 0) return result;
    const limited = this.perDay > 0 && options.limited !== false;
    if (limited) {
      // Until the transaction ends: batches of one account that race would otherwise each count the URLs created
      // before any of them committed, and together pass the limit. Taken before any target row is touched, so that
      // a transaction waiting for it holds no row another one needs.
      await lockAccount(tx, 'callbackUrls', accountId);
    }
    const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
    const { touched, createdSince } = await callbackTargetsTouch(tx, accountId, missing, now, limited ? today : null);
    for (const target of touched) {
      result.set(target.url, target.id);
      // Trusted from the last use another transaction committed: this one's may still be rolled back.
      this.remember(accountId, target.url, target.id, target.usedBefore.getTime() + CALLBACK_TARGET_TRUST_MS, now);
    }
    const found = new Set(touched.map((t) => t.url));
    let fresh = missing.filter((url) => !found.has(url));
    if (limited) fresh = fresh.slice(0, Math.max(0, this.perDay - createdSince));
    if (fresh.length === 0) return result;
    // Not remembered: a target created here does not exist for other transactions until this one commits, and
    // would not at all if it rolled back. The URL's next use finds it in the database.
    for (const row of await callbackTargetsInsert(tx, accountId, fresh, now)) result.set(row.url, row.id);
    return result;
  }

  private recall(accountId: number, url: string, now: Date): number | undefined {
    const key = `${accountId}\u0000${url}`;
    const entry = this.known.get(key);
    if (entry === undefined) return undefined;
    this.known.delete(key);
    if (entry.until <= now.getTime()) return undefined;
    // Used again: the most recently used comes last.
    this.known.set(key, entry);
    return entry.id;
  }

  private remember(accountId: number, url: string, id: number, until: number, now: Date): void {
    if (until <= now.getTime()) return;
    const key = `${accountId}\u0000${url}`;
    this.known.delete(key);
    this.known.set(key, { id, until });
    for (const oldest of this.known.keys()) {
      if (this.known.size <= this.max) break;
      this.known.delete(oldest);
    }
  }
}

/** Targets looked at per statement of an expiry run, and at most per run (the rest wait for the next run). */
const EXPIRY_BATCH = 1000;
const EXPIRY_MAX_PER_RUN = 100_000;

/**
 * Expires the callback targets unused since `now` minus {@link CALLBACK_TARGET_IDLE_MS} that have nothing left to
 * send (no open POST, no event beyond its lane's cursor): their 16 lane cursors go, and the target itself once
 * nothing refers to it (no event, no message: with HERALD_RETENTION_DAYS unset, a target that had messages stays,
 * as one row, as long as they do). In batches of 1000 targets, at most 100,000 a run. Returns what it did.
 */
export async function expireCallbackTargets(
  db: Db,
  now: Date,
): Promise<{ examined: number; parked: number; deleted: number }> {
  const usedBefore = new Date(now.getTime() - CALLBACK_TARGET_IDLE_MS);
  const total = { examined: 0, parked: 0, deleted: 0 };
  let after: ExpiryPosition = EXPIRY_START;
  while (total.examined < EXPIRY_MAX_PER_RUN) {
    // The window of a target's messages: a day either side of its use, as the idle time, for clocks that disagree.
    const batch = await callbackTargetsExpire(db, usedBefore, after, EXPIRY_BATCH, CALLBACK_TARGET_IDLE_MS);
    total.examined += batch.examined;
    total.parked += batch.parked;
    total.deleted += batch.deleted;
    after = batch.next;
    if (batch.examined < EXPIRY_BATCH) break;
  }
  return total;
}

/**
 * The retention deleted the messages made before `before`: the parked targets whose messages' window (a day past
 * their last use) ended before it are looked at by the next expiry run again.
 */
export async function recheckCallbackTargetsBefore(db: Queryable, before: Date): Promise<void> {
  await callbackTargetsRecheckUsedBefore(db, new Date(before.getTime() - CALLBACK_TARGET_IDLE_MS));
}
