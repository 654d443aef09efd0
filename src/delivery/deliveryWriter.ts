import type { Logger } from 'pino';
import type { Db, Queryable } from '../db/db.js';
import { TestSignal } from '../shared/testSignal.js';
import { LoopFailures, type LoopStep } from '../shared/loop.js';
import { systemClock, type Clock, type ClockTimer } from '../util/clock.js';
import { NO_STEPS_CREATED, type OutcomeHooks } from './outcomeHooks.js';
import type { CarrierReceipt } from '../connectors/index.js';
import {
  messageOutcomes,
  messageRecordOutcomes,
  type OutcomeBatch,
  receiptsPerPart,
  type StepOutcome,
} from '../messages/index.js';

export interface WriterOptions {
  /** Records that make a flush start at once. */
  readonly maxBatch: number;
  /** How long the first record of a batch waits for others. */
  readonly lingerMs: number;
}

export const DEFAULT_WRITER_OPTIONS: WriterOptions = { maxBatch: 2000, lingerMs: 5 };

/** A message a connector accepted (see OutcomeBatch in messages/). */
export type SentRecord = OutcomeBatch['sent'][number];
/** A message to try again later. */
export type RetryRecord = OutcomeBatch['retries'][number];
/** A message that reached a status without a receipt. */
export type StatusRecord = OutcomeBatch['statuses'][number];

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

interface Pending {
  sent: SentRecord[];
  retries: RetryRecord[];
  statuses: StatusRecord[];
  receipts: CarrierReceipt[];
  waiters: Waiter[];
}

/** A submission this process made recently, by carrier id: its receipts need no database lookup. */
interface RecentSubmission {
  readonly accountId: number;
  readonly id: string;
  readonly parts: number;
  readonly readTracked: boolean;
  readonly cascade: boolean;
  readonly at: number;
}

const empty = (): Pending => ({ sent: [], retries: [], statuses: [], receipts: [], waiters: [] });
/** Receipts usually come within seconds; later ones are matched through the submissions table. */
const RECENT_SUBMISSION_MS = 60_000;

/** Counters for the operator and the benchmarks. */
export interface WriterStats {
  flushes: number;
  sent: number;
  retries: number;
  statuses: number;
  receipts: number;
  receiptsFromMemory: number;
  orphaned: number;
  ignored: number;
  failures: number;
  /** Messages a carrier's failure sent on through their route's next connector (DESIGN 21). */
  rerouted: number;
}

/**
 * Group commit for the outcomes of delivery. Submissions, retries, status changes and receipts from every
 * connector are gathered for a few milliseconds (or up to a batch), merged per message (a submission and its
 * receipt 20 ms later become one change to the row) and written with one statement, instead of a transaction
 * per message. Receipts for this process's own recent submissions are matched in memory; others are matched
 * through the submissions table in the same transaction. Each caller's promise resolves when its record is
 * committed: SMPP receipts are acknowledged, and webhooks answered, only then. A failed flush is retried with
 * back-off, keeping its records: an accepted submission is never forgotten while the process lives.
 */
export class DeliveryWriter {
  private pending: Pending = empty();
  private size = 0;
  private timer: ClockTimer | undefined;
  private flushing: Promise<void> | undefined;
  private backoffMs = 0;
  private readonly recent = new Map<string, RecentSubmission>();
  /** Told how long each receipt matched in memory took after its submission (the metrics' receipt latency). */
  onReceiptLatency: ((ms: number) => void) | undefined;
  readonly stats: WriterStats = {
    flushes: 0,
    sent: 0,
    retries: 0,
    statuses: 0,
    receipts: 0,
    receiptsFromMemory: 0,
    orphaned: 0,
    ignored: 0,
    failures: 0,
    /** Messages a carrier's failure sent on through their route's next connector (DESIGN 21). */
    rerouted: 0,
  };
  /** Called after a batch that rerouted messages (DESIGN 21) committed: main.ts wakes the submitter. */
  onRerouted: (() => void) | undefined;
  /** For tests: `flushed` fires after each committed batch with the number of records it wrote. */
  readonly testSignals = { flushed: new TestSignal<number>() };
  /** The batches' writes: a database outage logged once, not once a retry. */
  private readonly writes: LoopStep;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: WriterOptions = DEFAULT_WRITER_OPTIONS,
    private readonly clock: Clock = systemClock,
    private readonly hooks?: OutcomeHooks,
  ) {
    this.writes = new LoopFailures(log, clock).step('delivery records not written; retrying');
  }

  sent(record: SentRecord): Promise<void> {
    const now = this.clock.nowMs();
    for (const carrierId of record.carrierIds) {
      this.recent.set(`${record.connectorId}\u0000${carrierId}`, {
        accountId: record.accountId,
        id: record.id,
        parts: record.carrierIds.length,
        readTracked: record.readTracked,
        cascade: record.cascade === true,
        at: now,
      });
    }
    return this.add((p) => p.sent.push(record));
  }

  retry(record: RetryRecord): Promise<void> {
    return this.add((p) => p.retries.push(record));
  }

  status(record: StatusRecord): Promise<void> {
    return this.add((p) => p.statuses.push(record));
  }

  receipts(receipts: readonly CarrierReceipt[]): Promise<void> {
    if (receipts.length === 0) return Promise.resolve();
    return this.add((p) => p.receipts.push(...receipts));
  }

  /** Writes everything gathered so far and waits for it. */
  async drain(): Promise<void> {
    while (this.size > 0 || this.flushing) {
      if (this.flushing) await this.flushing.catch(() => undefined);
      else await this.flush();
    }
  }

  private add(put: (pending: Pending) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      put(this.pending);
      this.pending.waiters.push({ resolve, reject });
      this.size++;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.timer) return;
    const delay = this.backoffMs > 0 ? this.backoffMs : this.size >= this.options.maxBatch ? 0 : this.options.lingerMs;
    this.timer = this.clock.setTimer(delay, () => {
      this.timer = undefined;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.size === 0) return;
    const batch = this.pending;
    this.pending = empty();
    this.size = 0;
    this.flushing = this.write(batch);
    try {
      await this.flushing;
      this.backoffMs = 0;
      this.writes.succeeded();
      for (const waiter of batch.waiters) waiter.resolve();
      this.testSignals.flushed.signal(batch.waiters.length);
    } catch (error) {
      this.stats.failures++;
      this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5000);
      this.writes.failed(error, { retryInMs: this.backoffMs });
      // Put the batch back in front of what came meanwhile, keeping the order of records.
      const later = this.pending;
      this.pending = {
        sent: [...batch.sent, ...later.sent],
        retries: [...batch.retries, ...later.retries],
        statuses: [...batch.statuses, ...later.statuses],
        receipts: [...batch.receipts, ...later.receipts],
        waiters: [...batch.waiters, ...later.waiters],
      };
      this.size = this.pending.waiters.length;
    } finally {
      this.flushing = undefined;
      if (this.size > 0) this.schedule();
    }
  }

  private async write(batch: Pending): Promise<void> {
    // Whether a step of a cascade is among the records: its outcome and the next step share a transaction.
    let cascade = [...batch.sent, ...batch.retries, ...batch.statuses].some((r) => r.cascade === true);
    const known: { accountId: number; id: string; receipt: CarrierReceipt }[] = [];
    const dbReceipts: CarrierReceipt[] = [];
    for (const receipt of receiptsPerPart(batch.receipts)) {
      const key = `${receipt.connectorId}\u0000${receipt.carrierId}`;
      const submission = this.recent.get(key);
      if (!submission || submission.parts > 1) {
        dbReceipts.push(receipt);
        continue;
      }
      this.stats.receiptsFromMemory++;
      if (submission.cascade) cascade = true;
      this.onReceiptLatency?.(this.clock.nowMs() - submission.at);
      if (receipt.state !== 'delivered' || !submission.readTracked) this.recent.delete(key);
      known.push({ accountId: submission.accountId, id: submission.id, receipt });
    }
    this.forgetOldSubmissions();

    const outcomes = messageOutcomes(Object.assign({}, batch, { known, receipts: dbReceipts }));
    const ended: StepOutcome[] = [];
    let created = NO_STEPS_CREATED;
    let rerouted = 0;
    const run = async (q: Queryable): Promise<void> => {
      const recorded = await messageRecordOutcomes(q, outcomes, ended);
      rerouted = recorded.rerouted;
      this.stats.rerouted += rerouted;
      this.stats.orphaned += recorded.orphaned;
      this.stats.ignored += recorded.ignored;
      if (ended.length > 0 && this.hooks) created = await this.hooks.stepsEnded(q, ended, this.clock.now());
    };
    // The common flush is one statement, atomic by itself (refunds and events included); more statements share
    // a transaction, and so does a flush with a step of a cascade (its next step is created with its outcome).
    // (Fallbacks and notes that follow it are independent, status-guarded statements.)
    try {
      if (!outcomes.severalStatements && !(cascade && this.hooks)) await run(this.db);
      else await this.db.transaction(run);
      created.committed();
      // Messages a carrier's failure rerouted are due now: the submitter is told, as for a retry.
      if (rerouted > 0) this.onRerouted?.();
    } finally {
      created.close();
    }

    this.stats.flushes++;
    this.stats.sent += batch.sent.length;
    this.stats.retries += batch.retries.length;
    this.stats.statuses += batch.statuses.length;
    this.stats.receipts += batch.receipts.length;
  }

  private forgetOldSubmissions(): void {
    const before = this.clock.nowMs() - RECENT_SUBMISSION_MS;
    for (const [key, entry] of this.recent) {
      if (entry.at >= before) break;
      this.recent.delete(key);
    }
  }
}
