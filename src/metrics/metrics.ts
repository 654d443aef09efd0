import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { callbackBacklog, type CallbackSender } from '../callbacks/index.js';
import type { ConnectorState } from '../connectors/index.js';
import type { Db } from '../db/db.js';
import { type ReplicaLag, replicaLag } from '../db/replica.js';
import type { DeliveryWriter, Submitter } from '../delivery/index.js';
import type { Clock } from '../util/clock.js';
import { messageQueueFigures, type QueueFloor } from '../messages/index.js';

/** What the metrics read when scraped; the worker parts are absent in an api-only process. */
export interface MetricSources {
  readonly db: Db;
  /** The read replica (HERALD_READ_DATABASE_URL), when there is one: its pool and lag. */
  readonly replica?: Db | undefined;
  readonly clock: Clock;
  /** The process's reader of the queue's floor: the queue's figures read the partitions from there. */
  readonly floor: QueueFloor;
  readonly connectors: () => readonly ConnectorState[];
  readonly writer: DeliveryWriter;
  readonly callbackSender: () => CallbackSender | undefined;
  /** The submitter (worker role): messages it found on a stop list. */
  readonly submitter: () => Submitter | undefined;
}

/** Database figures are read at most this often, however often Prometheus scrapes. */
const DB_FIGURES_MS = 1000;

/**
 * The event-loop lag histogram's sampling period (see the constructor). Node's histogram records the time between
 * two samples, so its figures include this period: an idle process's p99 reads about 101 ms.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Prometheus metrics of one Herald process (a registry of its own, so several Heralds can share a process in
 * tests). Request and message counts are counted where they happen; queue, callback backlog, connectors and the
 * pool are read when scraped, from the database (through the indexes of waiting rows) and from live state.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly messagesAccepted: Counter<'channel'>;
  readonly rateLimited: Counter<'kind'>;
  /** Items refused at generation (never stored as messages) and messages a monitor-mode setting let through. */
  readonly refusals: Counter<'code' | 'outcome'>;
  /** Carrier webhooks refused for a bad signature or secret, per connector: a forger, or a secret out of step. */
  readonly webhookRefused: Counter<'connector'>;
  readonly receiptLatency: Histogram;
  /** Messages the pumping detection found over an allowance (fraud/), by the account's mode: held, or monitored. */
  readonly pumpingBursts: Counter<'mode'>;
  /** Fraud holds opened, and decided by the operator: open holds are the difference. */
  readonly fraudHoldsOpened: Counter;
  readonly fraudHoldsDecided: Counter<'decision'>;
  /** Messages refused at generation because their destination is on a stop list (item 4032). */
  stopListedAtGeneration = 0;
  /** Subscribers' opt-outs (DESIGN 20), by how they opted out (keyword, link) and channel. */
  readonly optOuts: Counter<'source' | 'channel'>;
  private dbFigures: Promise<DbFigures> | undefined;
  private lag: Promise<ReplicaLag | undefined> | undefined;
  private lagAt = 0;
  private dbFiguresAt = 0;
  /** Whether the last read of the database figures succeeded (herald_database_up). */
  private databaseUp = true;

  constructor(private readonly sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'herald_',
      // The lag histogram samples the loop with a timer of this period. prom-client's 10 ms woke an idle process a
      // hundred times a second: 6.5 ms of CPU a second, most of an idle Herald's cost; 100 ms costs 1.5 ms and still
      // catches every stall long enough to matter.
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
    this.httpRequests = new Counter({
      name: 'herald_http_requests_total',
      help: 'HTTP requests answered',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.messagesAccepted = new Counter({
      name: 'herald_messages_accepted_total',
      help: 'Messages accepted by the send operation',
      labelNames: ['channel'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'herald_rate_limited_total',
      help: 'Requests refused with 429',
      labelNames: ['kind'],
      registers,
    });
    this.refusals = new Counter({
      name: 'herald_refusals_total',
      help: 'Messages refused at generation, by item code; outcome monitored: let through by a monitor-mode setting',
      labelNames: ['code', 'outcome'],
      registers,
    });
    this.webhookRefused = new Counter({
      name: 'herald_webhook_signature_failures_total',
      help: 'Carrier webhooks (status reports, Telegram updates) refused for a bad signature or secret token',
      labelNames: ['connector'],
      registers,
    });
    this.receiptLatency = new Histogram({
      name: 'herald_receipt_latency_seconds',
      help: 'From a submission to its carrier receipt (receipts of this process own submissions)',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.pumpingBursts = new Counter({
      name: 'herald_pumping_burst_messages_total',
      help: 'Messages over a pumping allowance: held (mode hold) or sent and counted (mode monitor)',
      labelNames: ['mode'],
      registers,
    });
    this.fraudHoldsOpened = new Counter({
      name: 'herald_fraud_holds_opened_total',
      help: 'Fraud holds opened by the pumping detection',
      registers,
    });
    this.fraudHoldsDecided = new Counter({
      name: 'herald_fraud_holds_decided_total',
      help: 'Fraud holds the operator released or rejected',
      labelNames: ['decision'],
      registers,
    });
    this.optOuts = new Counter({
      name: 'herald_opt_outs_total',
      help: "Subscribers' opt-outs: an inbound keyword or a confirmed unsubscribe link",
      labelNames: ['source', 'channel'],
      registers,
    });
    sources.writer.onReceiptLatency = (ms) => this.receiptLatency.observe(ms / 1000);

    // eslint-disable-next-line @typescript-eslint/no-this-alias -- collect() gets the gauge as `this`.
    const self = this;
    new Gauge({
      name: 'herald_queue_messages',
      help: 'Messages waiting: to be sent (waiting), for a receipt (sent), for a read (delivered)',
      labelNames: ['state'],
      registers,
      async collect() {
        const { queue } = await self.readDbFigures();
        this.reset();
        for (const q of queue) this.set({ state: q.state }, q.messages);
      },
    });
    new Gauge({
      name: 'herald_queue_oldest_age_seconds',
      help: 'Age of the oldest message waiting in each state (waiting: since it became due)',
      labelNames: ['state'],
      registers,
      async collect() {
        const { queue } = await self.readDbFigures();
        this.reset();
        for (const q of queue) this.set({ state: q.state }, q.oldest_age_s);
      },
    });
    new Gauge({
      name: 'herald_callback_backlog_events',
      help: 'Callback events not yet delivered: not yet in a delivery (pending) or in an open delivery (open)',
      labelNames: ['stage'],
      registers,
      async collect() {
        const { callbacks } = await self.readDbFigures();
        this.reset();
        if (!self.databaseUp) return;
        this.set({ stage: 'pending' }, callbacks.events);
        this.set({ stage: 'open' }, callbacks.open_events);
      },
    });
    new Gauge({
      name: 'herald_callback_open_deliveries',
      help: 'Callback deliveries being sent or waiting for a retry',
      registers,
      async collect() {
        const { callbacks } = await self.readDbFigures();
        this.reset();
        if (self.databaseUp) this.set(callbacks.open_deliveries);
      },
    });
    absoluteCounter(
      'herald_stop_list_refusals_total',
      'Messages refused for a stop list: at generation (item 4032) or when their turn to be sent came (unsent 453)',
      ['stage'],
      registers,
      () => [
        [{ stage: 'generation' }, this.stopListedAtGeneration],
        [{ stage: 'send' }, sources.submitter()?.stopListed ?? 0],
      ],
    );
    absoluteCounter(
      'herald_reroutes_total',
      'Messages sent on through the next connector of their route (DESIGN 21; this process), after a refusal at ' +
        'submission or a failed receipt',
      ['after'],
      registers,
      () => [
        [{ after: 'refusal' }, sources.submitter()?.rerouted ?? 0],
        [{ after: 'receipt' }, sources.writer.stats.rerouted],
      ],
    );
    absoluteCounter(
      'herald_callback_deliveries_total',
      'Callback deliveries by result (this process)',
      ['result'],
      registers,
      () => {
        const stats = sources.callbackSender()?.stats;
        return stats
          ? [
              [{ result: 'delivered' }, stats.delivered],
              [{ result: 'retry' }, stats.retried],
              [{ result: 'failed' }, stats.failed],
            ]
          : [];
      },
    );
    absoluteCounter(
      'herald_callback_events_delivered_total',
      'Callback events delivered (this process)',
      [],
      registers,
      () => {
        const stats = sources.callbackSender()?.stats;
        return stats ? [[{}, stats.events]] : [];
      },
    );
    absoluteCounter(
      'herald_connector_submitted_total',
      'Messages a connector handed to its carrier',
      ['connector', 'channel'],
      registers,
      () => sources.connectors().map((c) => [{ connector: c.id, channel: c.channel }, c.submitted]),
    );
    absoluteCounter(
      'herald_connector_throttled_total',
      'Answers of a carrier that asked to send slower (SMPP ESME_RTHROTTLED, ESME_RMSGQFUL)',
      ['connector', 'channel'],
      registers,
      () => sources.connectors().map((c) => [{ connector: c.id, channel: c.channel }, c.throttled ?? 0]),
    );
    connectorGauge(
      'herald_connector_paused_seconds',
      'Seconds left of the pause in sending that a carrier asking to send slower started; 0 when sending',
      registers,
      sources,
      (c) => (c.pausedUntil ? Math.max(0, c.pausedUntil.getTime() - sources.clock.nowMs()) / 1000 : 0),
    );
    connectorGauge(
      'herald_connector_up',
      'Connector bound (SMPP) or ready (HTTP): 1, else 0',
      registers,
      sources,
      (c) => (c.available ? 1 : 0),
    );
    connectorGauge(
      'herald_connector_in_flight',
      'Submissions waiting for the carrier answer',
      registers,
      sources,
      (c) => c.inFlight,
    );
    connectorGauge(
      'herald_connector_queued',
      'Submissions waiting for room in the connector window',
      registers,
      sources,
      (c) => c.queued ?? 0,
    );
    connectorGauge(
      'herald_connector_balance',
      'The balance left at the provider as its last answer said (declarative connectors that read one)',
      registers,
      sources,
      (c) => c.balance ?? undefined,
    );
    connectorGauge(
      'herald_connector_last_error_timestamp_seconds',
      'When the connector last failed (Unix time); 0 if it has not since the start',
      registers,
      sources,
      (c) => (c.lastErrorAt ? c.lastErrorAt.getTime() / 1000 : 0),
    );
    connectorGauge(
      'herald_connector_window',
      'Largest number of submissions in flight',
      registers,
      sources,
      (c) => c.window,
    );
    absoluteCounter('herald_receipts_total', 'Carrier receipts recorded (this process)', [], registers, () => [
      [{}, sources.writer.stats.receipts],
    ]);
    new Gauge({
      name: 'herald_database_up',
      help: 'The database answered the last read of the queue figures: 1, else 0 (the queue figures are then absent)',
      registers,
      async collect() {
        await self.readDbFigures();
        this.set(self.databaseUp ? 1 : 0);
      },
    });
    poolGauge(
      'herald_db_pool_connections',
      'Database connections of this process: total, idle, and requests waiting for one',
      registers,
      sources.db,
    );
    const replica = sources.replica;
    if (replica) {
      poolGauge(
        'herald_db_replica_pool_connections',
        'Read replica connections of this process: total, idle, and requests waiting for one',
        registers,
        replica,
      );
      new Gauge({
        name: 'herald_db_replica_lag_seconds',
        help:
          'How far the read replica is behind the primary: 0 when it has replayed all the primary had written, ' +
          'else the age of the last transaction it replayed (absent while either does not answer)',
        registers,
        async collect() {
          const lag = await self.readLag(replica);
          if (lag) this.set(lag.seconds);
        },
      });
      new Gauge({
        name: 'herald_db_replica_lag_bytes',
        help: 'WAL the primary has written and the read replica has not replayed yet',
        registers,
        async collect() {
          const lag = await self.readLag(replica);
          if (lag) this.set(lag.bytes);
        },
      });
    }
  }

  /** The replica's lag, read at most once per DB_FIGURES_MS; undefined while either server does not answer. */
  private readLag(replica: Db): Promise<ReplicaLag | undefined> {
    const now = Date.now();
    if (!this.lag || now - this.lagAt > DB_FIGURES_MS) {
      this.lagAt = now;
      this.lag = replicaLag(this.sources.db, replica).catch(() => undefined);
    }
    return this.lag;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private readDbFigures() {
    const now = Date.now();
    if (!this.dbFigures || now - this.dbFiguresAt > DB_FIGURES_MS) {
      this.dbFiguresAt = now;
      const at = this.sources.clock.now();
      // While the database is away, /metrics still answers (the process figures are what an operator needs then),
      // without the queue figures and with herald_database_up 0; a failed read is not kept, the next scrape tries
      // again.
      const { db, floor } = this.sources;
      const queueFigures = floor.current(db).then((from) => messageQueueFigures(db, at, from));
      this.dbFigures = Promise.all([queueFigures, callbackBacklog(db)]).then(
        ([queue, callbacks]) => {
          this.databaseUp = true;
          return { queue, callbacks };
        },
        () => {
          this.databaseUp = false;
          this.dbFigures = undefined;
          return NO_DB_FIGURES;
        },
      );
    }
    return this.dbFigures;
  }
}

interface DbFigures {
  readonly queue: Awaited<ReturnType<typeof messageQueueFigures>>;
  readonly callbacks: Awaited<ReturnType<typeof callbackBacklog>>;
}

const NO_DB_FIGURES: DbFigures = { queue: [], callbacks: { events: 0, open_deliveries: 0, open_events: 0 } };

type Labels = Record<string, string>;

/** A counter whose value is kept elsewhere (a component's own running count), set when scraped. */
function absoluteCounter(
  name: string,
  help: string,
  labelNames: string[],
  registers: Registry[],
  read: () => [Labels, number][],
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, value);
    },
  });
}

/** A pool's connections by state (PostgreSQL only: PGlite has no pool). */
function poolGauge(name: string, help: string, registers: Registry[], db: Db): void {
  new Gauge({
    name,
    help,
    labelNames: ['state'],
    registers,
    collect() {
      const pool = db.poolStats?.();
      if (!pool) return;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });
}

function connectorGauge(
  name: string,
  help: string,
  registers: Registry[],
  sources: MetricSources,
  /** undefined: the connector has no such figure (it is left out). */
  value: (c: ConnectorState) => number | undefined,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['connector', 'channel'],
    registers,
    collect() {
      this.reset();
      for (const c of sources.connectors()) {
        const v = value(c);
        if (v !== undefined) this.set({ connector: c.id, channel: c.channel }, v);
      }
    },
  });
}
