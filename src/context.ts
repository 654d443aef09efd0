import type { Logger } from 'pino';
import type { CallbackTargets } from './callbacks/index.js';
import type { Config, ConfigFile } from './config/index.js';
import type { ConnectorState, InboundSink, ReceiptSink } from './connectors/index.js';
import type { Db } from './db/db.js';
import type { PasswordHasher } from './accounts/index.js';
import type { Limits } from './http/auth.js';
import type { Metrics } from './metrics/index.js';
import type { ClaimedMessage } from './messages/index.js';
import type { Wakeup } from './delivery/index.js';
import type { Tariffs } from './money/index.js';
import type { RouteBook } from './routing/index.js';
import type { TemplateMatcher } from './templates/index.js';
import type { NumberingPlan } from './numbering/index.js';
import type { PortedNumbers } from './mnp/index.js';
import type { Channel } from './shared/channels.js';
import type { Clock } from './util/clock.js';

/**
 * The places a submitter has now for messages handed to it directly: each take() that answers yes uses one (of
 * the message's channel, and of the share SERVICE and PROMO messages may hold unless `urgent`).
 */
export interface DirectRoom {
  take(channel: Channel, urgent: boolean): boolean;
}

/** One request's hand-over: places reserved while its messages are stored, the messages handed after the commit. */
export interface DirectHandOver extends DirectRoom {
  /** Hands over the stored messages places were taken for. */
  hand(messages: readonly ClaimedMessage[]): void;
  /** Gives back the places taken and not handed over (a refused message, a rolled back transaction). */
  close(): void;
}

export const NO_DIRECT_ROOM: DirectHandOver = { take: () => false, hand: () => undefined, close: () => undefined };

export interface DirectSubmit {
  /** Opens a hand-over; the caller closes it. */
  open(): DirectHandOver;
  readonly leaseMs: number;
}

/** What every capability is given: configuration, database, clock, logger and the shared delivery plumbing. */
export interface AppContext {
  readonly config: Config;
  readonly configFile: ConfigFile;
  readonly db: Db;
  /**
   * Where reads that may lag the caller's own writes a little go (message lists, statistics, dispatch and console
   * reads): the read replica (HERALD_READ_DATABASE_URL), else {@link db} itself. Writes, reads inside a write's
   * transaction and idempotency checks stay on {@link db}; see db/replica.ts for a read of one's own fresh write.
   */
  readonly readDb: Db;
  readonly clock: Clock;
  readonly log: Logger;
  /** The operator API token: HERALD_ADMIN_TOKEN, or the one demo mode generated; undefined disables the API. */
  readonly adminToken: string | undefined;
  readonly plan: NumberingPlan;
  /** The number portability base's brands of ported numbers, which override the plan's (DESIGN 21). */
  readonly ported: PortedNumbers;
  readonly tariffs: Tariffs;
  /** The routes (DESIGN 21): a worker's kept current by its watcher, another's brought up to date when asked. */
  readonly routeBook: RouteBook;
  readonly templates: TemplateMatcher;
  readonly callbackTargets: CallbackTargets;
  /** Notified when messages are stored, so that an in-process submitter claims them at once. */
  readonly wakeup: Wakeup;
  /** Records carrier receipts (batched); resolves once they are committed. */
  readonly receiptSink: ReceiptSink;
  /** Takes inbound messages from a connector's webhook. */
  readonly inboundSink: InboundSink;
  /**
   * The fast lane of a process that has a submitter (roles all and worker): the API (role all) and the progress of
   * cascades may store due messages already leased to this process's submitter and hand them over after their
   * commit, instead of leaving them for the next claim. Absent in api-only processes.
   */
  readonly directSubmit: DirectSubmit | undefined;
  /**
   * Herald's own address, for carriers that are its simulators (embedded, or a test's): they call it back where no
   * public address is configured. Set once the API listens; undefined with real carriers, which need publicUrl.
   */
  readonly selfCallbackUrl: { value: string | undefined };
  /** Live state of this process's connectors (empty in an api-only process). */
  readonly connectorStates: () => ConnectorState[];
  readonly metrics: Metrics;
  readonly limits: Limits;
  /** Every password hash of the process goes through it (a bounded number at once). */
  readonly passwords: PasswordHasher;
}
