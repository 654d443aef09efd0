import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Db, Queryable } from '../db/db.js';
import { Loop } from '../shared/loop.js';
import { type Clock } from '../util/clock.js';
import type { ConnectorState } from './connector.js';
import { type ConnectorOutcomes, connectorOutcomesForget } from './connectorOutcomes.js';
import { connectorStatusDelete, connectorStatusList, connectorStatusUpsert } from './connectorStatusSql.js';

/** How often a worker process looks at its connectors' state, and records it when it changed. */
export const CONNECTOR_STATUS_INTERVAL_MS = 2000;
/** An unchanged state is recorded again after this long: an idle worker writes a row every 6 s, not every 2 s. */
const UNCHANGED_EVERY_MS = 6000;
/** A report older than this (a missed report) is shown as stale: its process is stuck, cut off or dead. */
export const CONNECTOR_STATUS_STALE_MS = 10_000;
/** Rows of a process silent this long are deleted by the next report of any process: it died without cleaning up. */
export const CONNECTOR_STATUS_FORGET_MS = 3600_000;

/** How often a worker's report also deletes the rows of processes silent for {@link CONNECTOR_STATUS_FORGET_MS}. */
const FORGET_EVERY_MS = 60_000;

/** The name a process reports under: hostname:pid. */
export function processName(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * Writes a worker process's connector states to connector_status every {@link CONNECTOR_STATUS_INTERVAL_MS}, so
 * that any api process can show the operator every connector of every worker (GET /admin/v1/connectors). Deletes its
 * rows when it stops. A failed write is logged and the next one tries again.
 */
export class ConnectorStatusWriter extends Loop {
  private forgotAt = -Infinity;
  /** The state last recorded, and when. */
  private written = { states: '', at: -Infinity };

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      log: Logger;
      states: () => ConnectorState[];
      /** The receipts counted since the last report, added to connector_outcomes with it. */
      outcomes?: ConnectorOutcomes;
    },
    private readonly options: { intervalMs: number; process: string } = {
      intervalMs: CONNECTOR_STATUS_INTERVAL_MS,
      process: processName(),
    },
  ) {
    super(deps.clock);
  }

  /** Reports at once, then every interval, until stopped. */
  protected async run(): Promise<void> {
    while (this.running) {
      await this.reportIfChanged().catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'connector status not recorded'),
      );
      if (this.running) await this.wake.wait(this.options.intervalMs);
    }
  }

  /** Stops reporting (the report under way ends first), then deletes this process's rows. */
  override async stop(): Promise<void> {
    await super.stop();
    await this.deps.outcomes
      ?.flush(this.deps.db)
      .catch((error: unknown) => this.deps.log.warn({ err: error }, 'connector outcomes not recorded'));
    await connectorStatusDelete(this.deps.db, this.options.process, null).catch((error: unknown) =>
      this.deps.log.warn({ err: error }, 'connector status rows not deleted'),
    );
  }

  /** Records the current states when they changed since the last report, or that one is getting old. */
  private async reportIfChanged(): Promise<void> {
    await this.deps.outcomes?.flush(this.deps.db);
    const states = JSON.stringify(this.deps.states());
    if (states === this.written.states && this.deps.clock.nowMs() - this.written.at < UNCHANGED_EVERY_MS) return;
    await this.report();
  }

  /** Records the current states, and forgets processes that have been silent for an hour. */
  async report(): Promise<void> {
    const now = this.deps.clock.now();
    const states = this.deps.states();
    await connectorStatusUpsert(this.deps.db, this.options.process, states, now);
    this.written = { states: JSON.stringify(states), at: now.getTime() };
    // Forgetting the dead is not urgent: once a minute at most, not a statement at every report of an idle worker.
    if (now.getTime() - this.forgotAt < FORGET_EVERY_MS) return;
    this.forgotAt = now.getTime();
    await connectorStatusDelete(this.deps.db, null, new Date(now.getTime() - CONNECTOR_STATUS_FORGET_MS));
    if (this.deps.outcomes) await connectorOutcomesForget(this.deps.db, now);
  }
}

/** The connectors some worker process reports up (bound, ready) in a report that is not stale. */
export async function connectorsUp(db: Queryable, now: Date): Promise<Set<string>> {
  const rows = await connectorStatusList(db);
  return new Set(
    rows
      .filter((r) => r.available && now.getTime() - r.updated_at.getTime() <= CONNECTOR_STATUS_STALE_MS)
      .map((r) => r.connector_id),
  );
}
