import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import { IDEMPOTENCY_WINDOW_MS } from '../idempotency/idempotency.js';
import { idempotencyPurge } from '../idempotency/idempotencySql.js';
import type { Clock } from '../util/clock.js';
import { rollUpStatistics } from '../statistics/rollup.js';
import { messageExpireDue } from './deliverySql.js';
import { retentionCutoff, retentionSweep } from './retention.js';
import { orphanReceiptsTakeMatched } from './receiptSql.js';
import { applyReceipts } from './receipts.js';
import { DELIVERY_ERRORS } from './statuses.js';
import { callbackCursorsExpire } from '../callbacks/laneSql.js';
import { DAY_MS } from '../util/time.js';

/** Orphan receipts are matched again for an hour; a submission recorded later than that is not coming. */
const ORPHAN_LIFETIME_MS = 3600_000;
const EXPIRE_BATCH = 1000;

export interface MaintenanceOptions {
  readonly intervalMs: number;
  /** HERALD_RETENTION_DAYS: what is older and finished is deleted (unset: everything is kept). */
  readonly retentionDays?: number;
}

/**
 * The due-time jobs besides sending: lifetimes that have run out (sent -> undelivered, delivered -> unread), orphan
 * receipts whose submission has since been recorded, and old idempotency records. All are driven by times stored
 * in the database, so a restart forgets nothing; several workers share them through SKIP LOCKED.
 */
export class Maintenance {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private ticks = 0;

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: Logger },
    private readonly options: MaintenanceOptions = { intervalMs: 1000 },
  ) {}

  start(): void {
    const loop = (): void => {
      this.running = this.tick()
        .catch((error: unknown) => this.deps.log.error({ err: error }, 'maintenance failed'))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(loop, this.options.intervalMs);
        });
    };
    this.timer = setTimeout(loop, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One round: lifetimes every time, orphan receipts every 5th, idempotency records every 60th. */
  async tick(): Promise<number> {
    this.ticks++;
    const expired = await this.expireDue();
    if (this.ticks % 5 === 1) await this.matchOrphanReceipts();
    if (this.ticks % 60 === 1) {
      await this.purgeIdempotencyKeys();
      await rollUpStatistics(this.deps.db, this.deps.clock.now(), { frozenBefore: this.retentionCutoff() });
    }
    if (this.ticks % 600 === 2) {
      await this.sweepRetention();
      await this.expireCallbackCursors();
    }
    return expired;
  }

  /** Ends the lifetimes that have run out; returns how many messages reached their end. */
  async expireDue(): Promise<number> {
    const { db, clock } = this.deps;
    let expired = 0;
    for (;;) {
      const rows = await messageExpireDue(db, clock.now(), EXPIRE_BATCH, { noReceipt: DELIVERY_ERRORS.noReceipt, notRead: DELIVERY_ERRORS.notRead });
      expired += rows.length;
      if (rows.length < EXPIRE_BATCH) return expired;
    }
  }

  /** Applies orphan receipts whose submission has since been recorded, and forgets those too old to match. */
  async matchOrphanReceipts(): Promise<void> {
    const { db, clock } = this.deps;
    // Taken and applied in one transaction: a crash between the two would lose them.
    await db.transaction(async (tx) => {
      const matched = await orphanReceiptsTakeMatched(tx, new Date(clock.now().getTime() - ORPHAN_LIFETIME_MS));
      if (matched.length > 0) await applyReceipts(tx, matched);
    });
  }

  /** Deletes what the retention no longer keeps (every 10 minutes at the default interval). */
  async sweepRetention(): Promise<void> {
    const cutoff = this.retentionCutoff();
    if (cutoff === undefined) return;
    const result = await retentionSweep(this.deps.db, cutoff);
    if (result.messages + result.submissions + result.callbackDeliveries > 0) this.deps.log.info(result, 'retention: old records deleted');
  }

  /** Drops the lane cursors of callback URLs idle for a day (they come back with the URL's next event). */
  async expireCallbackCursors(): Promise<number> {
    let expired = 0;
    for (;;) {
      const n = await callbackCursorsExpire(this.deps.db, new Date(this.deps.clock.now().getTime() - DAY_MS), 10_000);
      expired += n;
      if (n < 10_000) return expired;
    }
  }

  private retentionCutoff(): Date | undefined {
    const days = this.options.retentionDays;
    return days === undefined ? undefined : retentionCutoff(this.deps.clock.now(), days);
  }

  async purgeIdempotencyKeys(): Promise<void> {
    const { db, clock } = this.deps;
    await idempotencyPurge(db, new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS), 10_000);
  }
}
