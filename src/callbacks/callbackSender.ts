import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import type { Db, Queryable } from '../db/db.js';
import { wakeAtCommit } from '../db/wake.js';
import { WriteBatches } from '../util/writeBatches.js';
import { type Clock } from '../util/clock.js';
import { maskCallbackUrl } from '../shared/callbackUrlMask.js';
import { isPrivateAddress } from './callbackUrl.js';
import {
  callbackPostsClaim,
  callbackPostsForm,
  callbackPostsBodies,
  callbackPostNextDue,
  callbackPostDefer,
  callbackPostsRecord,
  type AttemptOutcome,
  type ClaimedPost,
  type FormRound,
} from './postSql.js';
import {
  callbackCursorsEnsure,
  callbackLanesBehind,
  callbackScanLoad,
  callbackScanSave,
  type EventPosition,
  type Lane,
} from './laneSql.js';
import { callbackEventsAfter } from './eventSql.js';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signCallback } from './signing.js';
import { CircuitBreaker } from '../shared/circuitBreaker.js';
import { DUE_LEFT_POLL_MS, ERROR_POLL_MS, Loop, LoopFailures, type LoopStep } from '../shared/loop.js';
import { TestSignal } from '../shared/testSignal.js';

export interface CallbackSenderOptions {
  readonly retryIntervalS: number;
  readonly retryWindowS: number;
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  /** POSTs in flight at once, over all receivers. */
  readonly maxInFlight: number;
  /** Connections to one receiver host at once. */
  readonly perHost: number;
  /**
   * The longest an idle sender sleeps between looks: a safety poll for a missed wake-up. New events wake it (the
   * listener, db/wake.ts), and it wakes by itself when the next open POST falls due.
   */
  readonly pollMs: number;
  /** A POST's lease (HERALD_LEASE_SECONDS): never shorter than an attempt may take ({@link callbackLeaseMs}). */
  readonly leaseMs: number;
  /** Consecutive failures of a host that open its circuit, and for how long. */
  readonly breakerFailures: number;
  readonly breakerOpenMs: number;
}

export const DEFAULT_SENDER_OPTIONS: Omit<CallbackSenderOptions, 'retryIntervalS' | 'retryWindowS' | 'allowPrivate'> = {
  timeoutMs: 10_000,
  maxInFlight: 64,
  perHost: 16,
  pollMs: 5000,
  leaseMs: 60_000,
  breakerFailures: 5,
  breakerOpenMs: 30_000,
};

/** What a POST's lease holds beyond its attempt's timeout: reading its events before, writing its outcome after. */
export const OUTCOME_MARGIN_MS = 5000;

/**
 * The lease a sender takes its POSTs for: `leaseMs`, but at least an attempt's timeout and the margin for reading its
 * events and writing its outcome. An outcome changes its POST only under the lease it was made under (a refusal) or
 * while the POST is open (a delivery: callbackPostsRecord); with a lease shorter than the timeout (HERALD_LEASE_SECONDS
 * 3 and the default 10 s), a receiver slower than the lease had every POST taken again while in flight, by another
 * sender or this one, each attempt's refusal dropped, and the POST sent again every lease span for ever.
 */
export const callbackLeaseMs = (leaseMs: number, timeoutMs: number): number =>
  Math.max(leaseMs, timeoutMs + OUTCOME_MARGIN_MS);

/** The first wait for events of transactions above the horizon, doubled at each look that still finds them. */
const HORIZON_WAIT_MS = 20;

/** Outcomes recorded by one statement at most (a sender has at most maxInFlight POSTs under way). */
const OUTCOMES_PER_STATEMENT = 500;

class PrivateAddressError extends Error {}

const laneKey = (lane: Lane): string => `${lane.targetId}:${lane.lane}`;

/** A round's forming, and whether it saved its look. */
interface Formed extends FormRound {
  readonly saved: boolean;
}

/**
 * Delivers the callback outbox: forms POSTs of up to 100 events per callback URL, POSTs
 * each as a JSON array with the account's signature and the POST id (the same on every retry), and records
 * each attempt. A non-2xx answer, a timeout (10 s) or a connection error is retried every retry interval until
 * the retry window ends, then the POST is failed and kept for replay. Receivers are isolated: one open
 * POST per URL, a connection limit per host, and a circuit breaker that parks a host after repeated failures,
 * so one dead receiver never delays the others. Private addresses are refused at connect time (after DNS), unless
 * allowed.
 *
 * Its loop's {@link wake} is poke(): new events, a finished POST. A POST due that a round did not start (a
 * replay waiting for the lane's open POST, one another worker holds, no place left) is looked at again after
 * DUE_LEFT_POLL_MS, or when a finished POST pokes it.
 */
export class CallbackSender extends Loop {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly agent: Agent;
  private readonly breakers = new Map<string, CircuitBreaker>();
  /** Lanes with events not yet in a POST, as far as this sender knows, by `target:lane`. */
  private readonly pending = new Map<string, Lane>();
  /** Events of transactions below this have been looked at (undefined: not yet, at start). */
  private scannedTo: EventPosition | undefined;
  private unsaved = false;
  /** The last look left events for later (see FormRound.behind), and how many looks in a row did. */
  private behind = false;
  private behindRounds = 0;
  /** When the next open POST falls due, as the last round that formed nothing read it. */
  private nextDue: Date | null | undefined;
  private savedAt = 0;
  /** At start: every lane with events beyond its cursor is looked at (this sender has watched none yet). */
  private sweepLanes = false;
  readonly stats = { delivered: 0, retried: 0, failed: 0, events: 0 };
  /** The attempts' outcomes, recorded together when they end together (callbackPostsRecord). */
  private readonly outcomes: WriteBatches<AttemptOutcome>;
  /** For tests: `round` fires at the end of each round of the loop with the number of attempts it started. */
  readonly testSignals = { round: new TestSignal<number>() };
  /** The rounds' and the next-due looks' failures: one outage of the loop, logged once. */
  private readonly rounds: LoopStep;
  private readonly nextDueLooks: LoopStep;

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: Logger },
    private readonly options: CallbackSenderOptions,
  ) {
    super(deps.clock);
    const failures = new LoopFailures(deps.log, deps.clock);
    this.rounds = failures.step('callback round failed');
    this.nextDueLooks = failures.step('reading the next due callback POST failed');
    this.outcomes = new WriteBatches((outcomes) => callbackPostsRecord(deps.db, outcomes), OUTCOMES_PER_STATEMENT);
    this.agent = new Agent({
      connections: options.perHost,
      keepAliveTimeout: 30_000,
      connect: { lookup: this.guardedLookup.bind(this) as never },
    });
  }

  /** Wakes the loop now, or has it go round once more if it is in a round. */
  poke(): void {
    this.wake.notify();
  }

  override async stop(): Promise<void> {
    await super.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.agent.close();
  }

  /**
   * One round: form the POSTs of the lanes with new events, then start the due ones. The forming and the claim
   * commit together, one write transaction (one flush of the WAL) a round instead of two (docs/scaling.md); the
   * sender's own view of its lanes moves on only once they have. Returns how many attempts it started.
   */
  async round(): Promise<number> {
    const { db } = this.deps;
    const room = this.options.maxInFlight - this.inFlight.size;
    let due: ClaimedPost[];
    if (!(await this.eventsToForm())) due = await this.claim(db, 0, room);
    else {
      const formed = await db.transaction(async (tx) => {
        const round = await this.form(tx);
        return { round, due: await this.claim(tx, round.formed, room) };
      });
      this.formed(formed.round);
      due = formed.due;
      if (formed.round.cursorless.length > 0) {
        // A URL's first events (or the first since its lanes idled): their lanes get a cursor (a transaction of its
        // own, rare), and form at once. Lanes of a URL that no longer exists have nothing to send (no event can name
        // it): they are let go.
        for (const lane of await callbackCursorsEnsure(db, formed.round.cursorless)) this.pending.delete(laneKey(lane));
        this.poke();
      }
    }
    // The round's POSTs' events in one statement, not one each.
    const bodies = due.length > 0 ? await callbackPostsBodies(db, due) : new Map<string, string[]>();
    for (const post of due) {
      const work = this.attempt(post, bodies.get(post.id)!).catch((error: unknown) =>
        this.deps.log.error(
          { err: error, delivery: post.id },
          'callback attempt could not be recorded; retried after its lease',
        ),
      );
      this.inFlight.add(work);
      // A finished POST frees its URL for the next one: go round again at once rather than at the next poll.
      void work.finally(() => {
        this.inFlight.delete(work);
        this.poke();
      });
    }
    return due.length;
  }

  /** Leases the due POSTs there is room for; when nothing new was formed, only if one is due (a bigger statement). */
  private async claim(db: Queryable, formed: number, room: number): Promise<ClaimedPost[]> {
    const { clock } = this.deps;
    if (room <= 0) return [];
    if (formed === 0) {
      this.nextDue = await callbackPostNextDue(db);
      if (this.nextDue === null || this.nextDue.getTime() > clock.nowMs()) return [];
    }
    return callbackPostsClaim(db, clock.now(), room, callbackLeaseMs(this.options.leaseMs, this.options.timeoutMs));
  }

  /**
   * Whether there may be events to form: lanes pending, or events since the last look (an idle round's one index
   * probe instead of the forming statement). The first round, at start, also takes every lane behind its cursor
   * (whatever happened while no sender ran) and the events since the look that the last sender saved.
   */
  private async eventsToForm(): Promise<boolean> {
    const { db } = this.deps;
    if (this.scannedTo === undefined) {
      this.scannedTo = await callbackScanLoad(db);
      this.sweepLanes = true;
    }
    if (this.sweepLanes) {
      this.sweepLanes = false;
      for (const lane of await callbackLanesBehind(db)) this.pending.set(laneKey(lane), lane);
    }
    if (this.pending.size === 0 && !(await callbackEventsAfter(db, this.scannedTo))) {
      this.behind = false;
      return false;
    }
    return true;
  }

  /** Forms POSTs for the pending lanes and those with events since the last look, in the round's transaction. */
  private async form(tx: Queryable): Promise<Formed> {
    const { clock } = this.deps;
    const round = await callbackPostsForm(
      tx,
      clock.now(),
      { pending: [...this.pending.values()], since: this.scannedTo! },
      500,
    );
    // The SMPP servers (api processes) lease what the binds get: told at once rather than at their next poll.
    if (round.formedSmpp > 0) await wakeAtCommit(tx, 'receipts');
    // At most once a second of real time (a write rate, not a span of the clock), the look is saved for a sender
    // that starts later (every event below it has a cursor).
    const save = (this.unsaved || round.found.length > 0) && performance.now() - this.savedAt >= 1000;
    if (save) await callbackScanSave(tx, round.next);
    return { ...round, saved: save };
  }

  /** What a committed round's forming tells this sender of its lanes. */
  private formed(round: Formed): void {
    for (const lane of [...round.found, ...round.cursorless]) this.pending.set(laneKey(lane), lane);
    for (const lane of round.caughtUp) this.pending.delete(laneKey(lane));
    this.scannedTo = round.next;
    this.behind = round.behind;
    if (round.saved) {
      this.savedAt = performance.now();
      this.unsaved = false;
    } else if (round.found.length > 0) this.unsaved = true;
  }

  /** Waits until nothing is in flight (tests). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  protected async run(): Promise<void> {
    while (this.running) {
      let started = 0;
      // A poke that came before the round is spent: the round sees what it announced.
      this.wake.clear();
      this.nextDue = undefined;
      try {
        started = await this.round();
        this.rounds.succeeded();
      } catch (error) {
        this.rounds.failed(error);
      }
      this.testSignals.round.signal(started);
      // Poked during the round, or during the look for the next due POST: the wait returns at once.
      if (started === 0 && this.running && !this.wake.notified) await this.wake.wait(await this.untilNextDue());
    }
  }

  /** Until the next open POST falls due, at most pollMs; soon again when one is due that was not taken. */
  private async untilNextDue(): Promise<number> {
    const { pollMs } = this.options;
    // Events wait for older transactions to end, which takes milliseconds, unless one is left open somewhere on
    // the server: look again soon, then less and less often.
    this.behindRounds = this.behind ? this.behindRounds + 1 : 0;
    const behindMs = this.behind
      ? Math.min(pollMs, HORIZON_WAIT_MS * 2 ** Math.min(this.behindRounds - 1, 10))
      : pollMs;
    try {
      const next = this.nextDue !== undefined ? this.nextDue : await callbackPostNextDue(this.deps.db);
      this.nextDueLooks.succeeded();
      if (next === null) return behindMs;
      const wait = next.getTime() - this.deps.clock.nowMs();
      return Math.min(behindMs, Math.max(wait, DUE_LEFT_POLL_MS));
    } catch (error) {
      this.nextDueLooks.failed(error);
      return Math.min(pollMs, ERROR_POLL_MS);
    }
  }

  private async attempt(post: ClaimedPost, bodies: readonly string[]): Promise<void> {
    const { db, clock, log } = this.deps;
    const url = new URL(post.url);
    const breaker = this.breakers.get(url.host);
    const now = clock.nowMs();
    if (breaker?.isOpen(now)) {
      await callbackPostDefer(db, post.id, post.lease_until, new Date(now + breaker.remainingMs(now)));
      return;
    }
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!this.options.allowPrivate && isIP(literal) && isPrivateAddress(literal)) {
      // An IP literal is never looked up, so the connect-time guard would not see it.
      await this.outcomes.add({
        postId: post.id,
        accountId: post.account_id,
        at: clock.now(),
        httpStatus: null,
        latencyMs: 0,
        error: `refused: private address ${literal}`,
        result: 'failed',
        nextAttemptAt: null,
        leaseUntil: post.lease_until,
      });
      this.stats.failed++;
      return;
    }
    const body = `[${bodies.join(',')}]`;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Herald-Callbacks/1',
      [DELIVERY_HEADER]: post.id,
      [SIGNATURE_HEADER]: signCallback(post.secret, body, Math.floor(clock.nowMs() / 1000)),
    };
    if (url.username || url.password) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    const started = performance.now();
    let httpStatus: number | null = null;
    let error: string | null = null;
    let permanent = false;
    // The timeout is a span of Herald's clock, so that tests jump over it; undici's own timeouts stay as a backstop.
    const abort = new AbortController();
    const timeout = this.deps.clock.setTimer(this.options.timeoutMs, () =>
      abort.abort(new DOMException('no answer in time', 'TimeoutError')),
    );
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: abort.signal,
      });
      httpStatus = response.statusCode;
      await response.body.dump();
      if (httpStatus < 200 || httpStatus >= 300) error = `HTTP ${httpStatus}`;
    } catch (caught) {
      permanent =
        caught instanceof PrivateAddressError || (caught as { cause?: unknown }).cause instanceof PrivateAddressError;
      error = permanent ? `refused: ${(caught as Error).message}` : describeError(caught);
    } finally {
      timeout.cancel();
    }
    const latencyMs = Math.round(performance.now() - started);
    const at = clock.now();
    const ok = error === null;
    this.noteHost(url.host, ok);
    let result: 'delivered' | 'retry' | 'failed' = 'delivered';
    let nextAttemptAt: Date | null = null;
    if (!ok) {
      const next = at.getTime() + this.options.retryIntervalS * 1000;
      const windowEnd = post.window_started_at.getTime() + this.options.retryWindowS * 1000;
      result = permanent || next > windowEnd ? 'failed' : 'retry';
      if (result === 'retry') nextAttemptAt = new Date(next);
      log.warn(
        { delivery: post.id, url: maskCallbackUrl(post.url), status: httpStatus, error, result },
        'callback not accepted',
      );
    }
    await this.outcomes.add({
      postId: post.id,
      accountId: post.account_id,
      at,
      httpStatus,
      latencyMs,
      error,
      result,
      nextAttemptAt,
      leaseUntil: post.lease_until,
    });
    if (result === 'delivered') {
      this.stats.delivered++;
      this.stats.events += bodies.length;
    } else if (result === 'retry') this.stats.retried++;
    else this.stats.failed++;
  }

  private noteHost(host: string, ok: boolean): void {
    if (ok) {
      this.breakers.delete(host);
      return;
    }
    let breaker = this.breakers.get(host);
    if (!breaker) {
      breaker = new CircuitBreaker({ failures: this.options.breakerFailures, openMs: this.options.breakerOpenMs });
      this.breakers.set(host, breaker);
    }
    breaker.failure(this.deps.clock.nowMs());
  }

  /** DNS lookup that refuses private, loopback and link-local addresses unless they are allowed. */
  private guardedLookup(
    hostname: string,
    options: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      if (!this.options.allowPrivate && list.some((a) => isPrivateAddress(a.address))) {
        return callback(new PrivateAddressError(`${hostname} resolves to a private address`), []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }
}

function describeError(error: unknown): string {
  const e = error as { name?: string; code?: unknown; message?: string; cause?: { code?: unknown; message?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT')
    return 'timeout';
  const code = typeof e.cause?.code === 'string' ? e.cause.code : typeof e.code === 'string' ? e.code : undefined;
  return String(code ?? e.cause?.message ?? e.message ?? error).slice(0, 300);
}
