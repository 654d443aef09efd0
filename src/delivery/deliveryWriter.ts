import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import { messageMarkSent, messageRetry, messageSetStatus, type RetryRecord, type SentRecord, type StatusRecord } from './deliverySql.js';
import type { CarrierReceipt } from './receiptSql.js';
import { applyReceipts } from './receipts.js';

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

const empty = (): Pending => ({ sent: [], retries: [], statuses: [], receipts: [], waiters: [] });

/** Counters for the operator and the benchmarks. */
export interface WriterStats {
  flushes: number;
  sent: number;
  retries: number;
  statuses: number;
  receipts: number;
  orphaned: number;
  ignored: number;
  failures: number;
}

/**
 * Group commit for the outcomes of delivery: submissions, retries, status changes and receipts from every
 * connector are gathered for a few milliseconds (or up to a batch) and written in one transaction of a few
 * set-based statements, instead of one transaction per message. Each caller's promise resolves when its record is
 * committed: SMPP receipts are acknowledged, and webhooks answered, only then. Records of one flush are written
 * in a fixed order (submissions before receipts), so a receipt never overtakes the record of its own submission
 * made by this process. A failed flush is retried with back-off, keeping its records: an accepted submission
 * is never forgotten while the process lives.
 */
export class DeliveryWriter {
  private pending: Pending = empty();
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private backoffMs = 0;
  readonly stats: WriterStats = { flushes: 0, sent: 0, retries: 0, statuses: 0, receipts: 0, orphaned: 0, ignored: 0, failures: 0 };

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: { maxBatch: number; lingerMs: number } = { maxBatch: 1000, lingerMs: 5 },
  ) {}

  sent(record: SentRecord): Promise<void> {
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
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delay);
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
      for (const waiter of batch.waiters) waiter.resolve();
    } catch (error) {
      this.stats.failures++;
      this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5000);
      this.log.error({ err: error, retryInMs: this.backoffMs }, 'delivery records not written; retrying');
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
    await this.db.transaction(async (tx) => {
      if (batch.sent.length > 0) await messageMarkSent(tx, batch.sent);
      if (batch.retries.length > 0) await messageRetry(tx, batch.retries);
      if (batch.statuses.length > 0) await messageSetStatus(tx, batch.statuses);
      if (batch.receipts.length > 0) {
        const outcome = await applyReceipts(tx, batch.receipts);
        this.stats.orphaned += outcome.orphaned;
        this.stats.ignored += outcome.ignored;
      }
    });
    this.stats.flushes++;
    this.stats.sent += batch.sent.length;
    this.stats.retries += batch.retries.length;
    this.stats.statuses += batch.statuses.length;
    this.stats.receipts += batch.receipts.length;
  }
}
