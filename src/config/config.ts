import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { DEFAULT_SENDER_OPTIONS } from '../callbacks/index.js';
import { DEFAULT_SUBMITTER_OPTIONS, DEFAULT_WRITER_OPTIONS } from '../delivery/index.js';
import { PUMPING_MODES, type PumpingMode } from '../shared/guardSettings.js';

/**
 * Herald's configuration: parsed once at start-up from `HERALD_*` variables (and `DATABASE_URL`) into one frozen
 * object. A bad or unknown value stops start-up with a {@link ConfigError} naming the variable; nothing falls back
 * silently to a default.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** PostgreSQL connection string; undefined selects the embedded PGlite database in {@link dataDir}. */
  readonly databaseUrl: string | undefined;
  /**
   * A PostgreSQL read replica (a streaming standby of {@link databaseUrl}'s server) for message lists, statistics,
   * dispatch and console reads; undefined reads everything from the primary (docs/scaling.md).
   */
  readonly readDatabaseUrl: string | undefined;
  /**
   * The connection workers LISTEN on for wake-ups (PostgreSQL): a direct one, since LISTEN needs a session that a
   * transaction pooler does not keep. Defaults to {@link databaseUrl}; undefined on PGlite.
   */
  readonly listenDatabaseUrl: string | undefined;
  readonly dataDir: string;
  /** Operator API token; undefined disables the operator API unless demo mode generates one. */
  readonly adminToken: string | undefined;
  readonly simulators: boolean;
  readonly simDelayMs: number;
  readonly shortUrlBase: string | undefined;
  readonly callbackRetryIntervalS: number;
  readonly callbackRetryWindowS: number;
  readonly callbackAllowPrivate: boolean;
  /** New callback URLs an account may use per UTC day (0: no limit). */
  readonly callbackUrlsPerDay: number;
  /** Inbound rules an account may have. */
  readonly inboundRulesPerAccount: number;
  /** Sender names one inbound rule may list. */
  readonly inboundRuleSenderNames: number;
  /** Traffic partitioning centers an account may have, its default included. */
  readonly trafficCentersPerAccount: number;
  /** Templates (not deleted) an account may have (0: no limit). */
  readonly templatesPerAccount: number;
  /**
   * How long the parts of a long inbound SMS wait for the rest before the message is stored as it is, and how long
   * the parts of a complete one are remembered to recognise a part the SMSC sends again.
   */
  readonly inboundPartsWaitSeconds: number;
  /** How often the parts of long inbound SMS are looked over (HERALD_INBOUND_PARTS_WAIT_SECONDS's sweep). */
  readonly inboundPartsSweepSeconds: number;
  readonly conversionPort: number | undefined;
  /** Where Herald's SMPP server for clients listens (api and all roles); undefined: no SMPP server (DESIGN 22). */
  readonly smppPort: number | undefined;
  /** SMPP over TLS: the PEM certificate and key, read at start-up; undefined: plain TCP. */
  readonly smppTls: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  /**
   * submit_sm per second per account in this process (0: no limit), bursts of twice as many: an SMPP client sends a
   * message a PDU, so HERALD_RATE_LIMIT (requests, each up to 1000 messages over HTTP) would hold it to 200 a second.
   */
  readonly smppRateLimit: number;
  /**
   * submit_sm unanswered per bind: a client's usual window is 10 (Kannel's max-pending-submits) to 100 (Jasmin,
   * Infobip); each costs a message in memory here, and a bind stores at most its window per batch's time.
   */
  readonly smppWindow: number;
  readonly demo: boolean;
  readonly logLevel: LogLevel;
  /** Largest body of a message batch (`POST /api/v1/message`); every other route has a limit of its own. */
  readonly bodyLimitBytes: number;
  /** Largest body of a carrier webhook (`POST /webhooks/{connectorId}`), which anyone can send. */
  readonly webhookBodyLimitBytes: number;
  /** Largest number portability file (`POST /admin/v1/mnp/import`): streamed to a temporary file, never held whole. */
  readonly mnpBodyLimitBytes: number;
  /** A request must arrive whole (headers and body) within this; a slower client gets 408 and is disconnected. */
  readonly requestTimeoutMs: number;
  /** The request line and headers must arrive within this (at most {@link requestTimeoutMs}). */
  readonly headersTimeoutMs: number;
  readonly currency: string;
  readonly dbPoolSize: number;
  /** A pool's connection idle this long closes (beyond the two every pool keeps). */
  readonly dbIdleSeconds: number;
  /** Repeated long statements named, prepared once a connection (db/statementNames.ts). */
  readonly dbPreparedStatements: boolean;
  readonly configFile: string | undefined;
  /** How long a worker's claim on a message lasts before another worker may take it. */
  readonly leaseSeconds: number;
  /** How a worker's loops are sized and paced (HERALD_DISPATCH_*, HERALD_WRITER_*, HERALD_CALLBACK_* tuning). */
  readonly workers: WorkerTuning;
  readonly shutdownSeconds: number;
  readonly retentionDays: number | undefined;
  /** Refuse messages no tariff prices (item code 4021) instead of sending them free. */
  readonly requireTariff: boolean;
  /**
   * The most the pumping detection does for any account (fraud/): `hold` lets each account's mode apply, `monitor`
   * only counts bursts, `off` switches it off.
   */
  readonly pumpingMode: PumpingMode;
  /**
   * The operator's exchange rates (HERALD_EXCHANGE_RATES), `${from}/${to}` -> how many `to` one `from` buys; the
   * inverse is implied. Routes' buy prices in another currency than the sale's are converted by them (DESIGN 21).
   */
  readonly exchangeRates: ReadonlyMap<string, number>;
  /** Client API requests per second per account in this process (0: no limit); bursts of twice as many. */
  readonly rateLimit: number;
  /**
   * Client API requests of one account handled at once in this process (0: no limit); more wait briefly for a place,
   * then get 429 (http/accountConcurrency.ts).
   */
  readonly accountConcurrency: number;
  /** Failed authentications per minute per client address before it gets 429 (0: no limit). */
  readonly authFailureLimit: number;
  /** Code sends (POST /api/v1/verifier/send) per client address per 10 minutes in this process (0: no limit). */
  readonly verifySendsPerAddress: number;
  /** Password hashes (scrypt) running at once in this process; the rest of libuv's thread pool stays free. */
  readonly passwordHashConcurrency: number;
  /** Password hashes that may wait for a turn; beyond, a sign-in gets 503 5035. */
  readonly passwordHashQueue: number;
  /** scrypt's N of new password hashes, as its power of two. */
  readonly passwordScryptCost: number;
  /** When set, GET /metrics takes `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /** Fastify's trustProxy: whose X-Forwarded-For to believe for the client address (rate limits, logs). */
  readonly trustProxy: boolean | number | string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_SIM_DELAY_MS = 200;
export const DEFAULT_CALLBACK_RETRY_INTERVAL_S = 300;
export const DEFAULT_CALLBACK_RETRY_WINDOW_S = 86_400;
/**
 * More new callback URLs a day than any integration needs (one per customer of a client is rare, one per message a
 * mistake), few enough that an account cannot grow the callback tables by millions of rows a day.
 */
export const DEFAULT_CALLBACK_URLS_PER_DAY = 1000;
/**
 * Rules and centers are settings a person writes by hand (one per department or sender name); 100 is far more than
 * that, and bounds what an account stores: 100 rules of 100 names of 64 characters and a 2 KiB URL are under 1 MB,
 * and every inbound message reads its account's rules.
 */
export const DEFAULT_INBOUND_RULES_PER_ACCOUNT = 100;
export const DEFAULT_INBOUND_RULE_SENDER_NAMES = 100;
export const DEFAULT_TRAFFIC_CENTERS_PER_ACCOUNT = 100;
/**
 * Far more templates than an account's messages need (one per kind of notification, in each language), few enough
 * that matching a message against all of them, and the operator's review queue, stay small.
 */
export const DEFAULT_TEMPLATES_PER_ACCOUNT = 1000;
/**
 * Handsets send the parts of a long SMS within seconds; an SMSC may hold one back for minutes when its network is
 * busy, and resends a part whose answer it missed within a minute or two. Ten minutes covers both.
 */
export const DEFAULT_INBOUND_PARTS_WAIT_SECONDS = 600;
/** A minute: an incomplete message is stored at most a minute after its wait ends; a look costs one indexed query. */
export const DEFAULT_INBOUND_PARTS_SWEEP_SECONDS = 60;
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
/** 1000 WhatsApp messages with full headers, footers and three 1000-character buttons stay below 16 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/**
 * Meta documents WhatsApp webhook payloads of up to 3 MB; the other providers send far less. Anyone can POST to a
 * webhook URL, and its body is read (and its signature computed) before it is known to be the provider's.
 */
export const DEFAULT_WEBHOOK_BODY_LIMIT_BYTES = 3 * 1024 * 1024;
/**
 * The Russian portability base's full file (Port_All_Full) has about 110 bytes a row (Port_All about 62): 4 GiB holds
 * some 39 million rows, beyond the base's size (6.1 million rows in 2017, some 30 million port requests since).
 */
export const DEFAULT_MNP_BODY_LIMIT_BYTES = 4 * 1024 * 1024 * 1024;
/** Room for a 16 MiB batch at 4.5 Mbit/s; a client slower than that holds a connection for nothing. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Headers are a few hundred bytes: far more than any real client needs, short enough to shed slowloris sockets. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_CURRENCY = 'RUB';
export const DEFAULT_DB_POOL_SIZE = 10;
/**
 * A new server connection plans each hot statement from cold caches (the claim 15.0 ms against 2.80, measured on an
 * idle machine): a pool that closed what was idle for 10 s (the driver's default) paid that again on every burst of
 * traffic that came more than 10 s after the last (docs/scaling.md, "Connections kept warm").
 */
export const DEFAULT_DB_IDLE_SECONDS = 600;
/** Longer than any submission takes (SMPP response timeout 10 s, HTTP 15 s), short enough to recover quickly. */
export const DEFAULT_LEASE_SECONDS = 60;
export const DEFAULT_SHUTDOWN_SECONDS = 30;
/** Far above what one client's integration needs (a 1000-message batch is one request), low enough to stop a loop. */
export const DEFAULT_RATE_LIMIT = 200;
export const DEFAULT_SMPP_RATE_LIMIT = 2000;
export const DEFAULT_SMPP_WINDOW = 100;
export const DEFAULT_AUTH_FAILURE_LIMIT = 30;
/**
 * Each running request of an account may hold a core of the database server (a heavy read scans its messages): on
 * the 2-core reference machine, with 16 heavy reads of one account at once on PostgreSQL, another account's send p50
 * was 28-35 ms with 2 places, 51-54 ms with 3 and 66-77 ms with 4 (p99 118-135, 145-151 and 152-215 ms; 480 ms and
 * 400 ms without a limit on the embedded database and on PostgreSQL). Ingest is no slower for it: four clients
 * posting 1000-message batches to one account stored 32,600 and 26,360 messages/s with 2 places, 33,884 and 24,621
 * with 4. The requests beyond wait for a place (a browser page's burst of calls, a client's extra threads); a larger
 * database server takes more (HERALD_ACCOUNT_CONCURRENCY).
 */
export const DEFAULT_ACCOUNT_CONCURRENCY = 2;
/**
 * A person asks for a code a few times while signing in; 60 in 10 minutes from one address to one account is a
 * family or an office behind one NAT, and well short of what a script pumping codes to premium numbers needs
 * (docs/verify.md).
 */
export const DEFAULT_VERIFY_SENDS_PER_ADDRESS = 60;
/**
 * scrypt holds a thread of libuv's pool (4 unless UV_THREADPOOL_SIZE says otherwise) and a core for ~170-250 ms;
 * file reads and DNS lookups wait for the same threads. Two at a time keeps half the pool for them (about 10
 * sign-ins a second); on fewer than 3 cores, one, so that the event loop keeps a core (two hashes on a 2-core
 * machine pushed another account's send p99 over 200 ms).
 */
export const DEFAULT_PASSWORD_HASH_CONCURRENCY = 2;
/**
 * A few seconds of waiting at 2 at a time: more than people signing in ever make, and as long as a sign-in should wait.
 */
export const DEFAULT_PASSWORD_HASH_QUEUE = 32;
/**
 * N = 2^15 (with r = 8, p = 3) is one of OWASP's equivalent minimums for scrypt. Each step down halves a hash's work:
 * below 15 only for tests, which sign in hundreds of times (10 takes ~3 ms instead of ~170 ms).
 */
export const DEFAULT_PASSWORD_SCRYPT_COST = 15;
/** libuv's default thread pool size, when UV_THREADPOOL_SIZE is not set. */
const LIBUV_DEFAULT_POOL_SIZE = 4;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** A worker's tuning: the defaults suit a 2-core machine with one SMSC; see docs/operations.md#tuning. */
export interface WorkerTuning {
  readonly dispatchBatch: number;
  readonly dispatchPollMs: number;
  readonly dispatchMaxInFlight: number;
  readonly dispatchChannelInFlight: number;
  readonly dispatchUrgentPercent: number;
  readonly noRouteRetryMs: number;
  readonly writerBatch: number;
  readonly writerLingerMs: number;
  readonly callbackTimeoutMs: number;
  readonly callbackMaxInFlight: number;
  readonly callbackPerHost: number;
  readonly callbackPollMs: number;
  readonly callbackBreakerFailures: number;
  readonly callbackBreakerOpenMs: number;
}

/** Each tuning variable: its field, range and default (the capability's own default, so there is one of each). */
const TUNING: Readonly<
  Record<string, { field: keyof WorkerTuning; min: number; max: number; default: number; what: string }>
> = {
  HERALD_DISPATCH_BATCH: {
    field: 'dispatchBatch',
    min: 1,
    max: 10_000,
    default: DEFAULT_SUBMITTER_OPTIONS.batchSize,
    what: 'messages one claim takes',
  },
  HERALD_DISPATCH_POLL_MS: {
    field: 'dispatchPollMs',
    min: 10,
    max: 60_000,
    default: DEFAULT_SUBMITTER_OPTIONS.pollMs,
    what: 'ms an idle submitter waits between claims (new messages wake it sooner)',
  },
  HERALD_DISPATCH_MAX_IN_FLIGHT: {
    field: 'dispatchMaxInFlight',
    min: 1,
    max: 1_000_000,
    default: DEFAULT_SUBMITTER_OPTIONS.maxInFlight,
    what: 'messages being handed to connectors at once',
  },
  HERALD_DISPATCH_CHANNEL_IN_FLIGHT: {
    field: 'dispatchChannelInFlight',
    min: 1,
    max: 1_000_000,
    default: DEFAULT_SUBMITTER_OPTIONS.channelInFlight,
    what: 'of those, messages of one channel',
  },
  HERALD_DISPATCH_URGENT_PERCENT: {
    field: 'dispatchUrgentPercent',
    min: 0,
    max: 90,
    default: DEFAULT_SUBMITTER_OPTIONS.urgentPercent,
    what: 'percent of the messages in hand kept for AUTHORIZE and TRANSACT ones',
  },
  HERALD_NO_ROUTE_RETRY_MS: {
    field: 'noRouteRetryMs',
    min: 100,
    max: 3_600_000,
    default: DEFAULT_SUBMITTER_OPTIONS.noRouteRetryMs,
    what: 'ms before a message whose route has no available connector is tried again',
  },
  HERALD_WRITER_BATCH: {
    field: 'writerBatch',
    min: 1,
    max: 100_000,
    default: DEFAULT_WRITER_OPTIONS.maxBatch,
    what: 'submission and receipt records that start a write at once',
  },
  HERALD_WRITER_LINGER_MS: {
    field: 'writerLingerMs',
    min: 0,
    max: 1000,
    default: DEFAULT_WRITER_OPTIONS.lingerMs,
    what: 'ms the first record of a write waits for others',
  },
  HERALD_CALLBACK_TIMEOUT_MS: {
    field: 'callbackTimeoutMs',
    min: 100,
    max: 120_000,
    default: DEFAULT_SENDER_OPTIONS.timeoutMs,
    what: 'ms a receiver has to answer a callback POST',
  },
  HERALD_CALLBACK_MAX_IN_FLIGHT: {
    field: 'callbackMaxInFlight',
    min: 1,
    max: 10_000,
    default: DEFAULT_SENDER_OPTIONS.maxInFlight,
    what: 'callback POSTs at once, over all receivers',
  },
  HERALD_CALLBACK_PER_HOST: {
    field: 'callbackPerHost',
    min: 1,
    max: 10_000,
    default: DEFAULT_SENDER_OPTIONS.perHost,
    what: 'callback POSTs at once to one receiver host',
  },
  HERALD_CALLBACK_POLL_MS: {
    field: 'callbackPollMs',
    min: 10,
    max: 60_000,
    default: DEFAULT_SENDER_OPTIONS.pollMs,
    what: 'ms an idle callback sender waits between looks',
  },
  HERALD_CALLBACK_BREAKER_FAILURES: {
    field: 'callbackBreakerFailures',
    min: 1,
    max: 1000,
    default: DEFAULT_SENDER_OPTIONS.breakerFailures,
    what: 'failures in a row that park a receiver host',
  },
  HERALD_CALLBACK_BREAKER_OPEN_MS: {
    field: 'callbackBreakerOpenMs',
    min: 100,
    max: 3_600_000,
    default: DEFAULT_SENDER_OPTIONS.breakerOpenMs,
    what: 'ms a parked receiver host waits before it is tried again',
  },
};

/** Every variable Herald reads, with its meaning; the README's configuration table lists the same. */
export const CONFIG_VARIABLES: Readonly<Record<string, string>> = {
  HERALD_HOST: `address the API listens on (default ${DEFAULT_HOST})`,
  HERALD_PORT: `port the API listens on (default ${DEFAULT_PORT}; 0 picks a free port)`,
  DATABASE_URL: 'PostgreSQL connection string; unset runs the embedded PGlite database',
  HERALD_READ_DATABASE_URL:
    'PostgreSQL read replica for lists, statistics, dispatch and console reads (needs DATABASE_URL; ' +
    'default: none, every read on the primary)',
  HERALD_LISTEN_DATABASE_URL:
    'PostgreSQL connection string the workers LISTEN on for wake-ups: a direct connection, not through a ' +
    'transaction pooler (default DATABASE_URL)',
  HERALD_DATA_DIR: `embedded database folder (default ${DEFAULT_DATA_DIR})`,
  HERALD_ADMIN_TOKEN: 'operator API token; unset disables the operator API (demo mode generates one)',
  HERALD_SIMULATORS: 'on|off: start the built-in carrier simulators (default on in embedded mode)',
  HERALD_SIM_DELAY_MS: `simulated receipt delay in ms (default ${DEFAULT_SIM_DELAY_MS})`,
  HERALD_SHORT_URL_BASE: 'public base URL of short links (default http://<host>:<port>/s in demo mode)',
  HERALD_CALLBACK_RETRY_INTERVAL: `seconds between callback attempts (default ${DEFAULT_CALLBACK_RETRY_INTERVAL_S})`,
  HERALD_CALLBACK_RETRY_WINDOW:
    `seconds during which callbacks are retried ` + `(default ${DEFAULT_CALLBACK_RETRY_WINDOW_S})`,
  HERALD_CALLBACK_ALLOW_PRIVATE: 'true|false: allow callbacks to private addresses (default true in demo mode)',
  HERALD_EXCHANGE_RATES:
    "exchange rates for routes' buy prices, e.g. USD/RUB=92.5,EUR/RUB=101 (1 USD = 92.5 RUB; default none)",
  HERALD_CALLBACK_URLS_PER_DAY:
    `new callback URLs an account may use per UTC day, 0 for no limit ` + `(default ${DEFAULT_CALLBACK_URLS_PER_DAY})`,
  HERALD_INBOUND_RULES_PER_ACCOUNT: `inbound rules an account may have (default ${DEFAULT_INBOUND_RULES_PER_ACCOUNT})`,
  HERALD_INBOUND_RULE_SENDER_NAMES:
    `sender names one inbound rule may list ` + `(default ${DEFAULT_INBOUND_RULE_SENDER_NAMES})`,
  HERALD_TRAFFIC_CENTERS_PER_ACCOUNT:
    `traffic partitioning centers an account may have, its default included ` +
    `(default ${DEFAULT_TRAFFIC_CENTERS_PER_ACCOUNT})`,
  HERALD_TEMPLATES_PER_ACCOUNT:
    `templates an account may have, 0 for no limit ` + `(default ${DEFAULT_TEMPLATES_PER_ACCOUNT})`,
  HERALD_INBOUND_PARTS_WAIT_SECONDS:
    `seconds the parts of a long inbound SMS wait for the rest before it is stored as it is, and the parts of a ` +
    `complete one are remembered to store a part sent again once (default ${DEFAULT_INBOUND_PARTS_WAIT_SECONDS})`,
  HERALD_INBOUND_PARTS_SWEEP_SECONDS:
    `seconds between looks for long inbound SMS whose wait ended, at most the wait ` +
    `(default ${DEFAULT_INBOUND_PARTS_SWEEP_SECONDS})`,
  HERALD_CONVERSION_PORT: 'extra listener for the FLASHCALL conversion operation (default unset)',
  HERALD_SMPP_PORT: 'port of the SMPP server for clients, api and all roles (default unset: no SMPP server)',
  HERALD_SMPP_RATE_LIMIT:
    `submit_sm per second per account and process, 0 for none (default ${DEFAULT_SMPP_RATE_LIMIT}; bursts of twice ` +
    'as many)',
  HERALD_SMPP_WINDOW:
    'submit_sm a bind may have unanswered; one more is refused ESME_RTHROTTLED; also its deliver_sm unanswered (at ' +
    `least 100), and an account's receipt batches in hand grow with it (default ${DEFAULT_SMPP_WINDOW})`,
  HERALD_SMPP_TLS_CERT: 'PEM certificate file: the SMPP server speaks TLS (with HERALD_SMPP_TLS_KEY; default unset)',
  HERALD_SMPP_TLS_KEY: 'PEM private key file of HERALD_SMPP_TLS_CERT (default unset)',
  HERALD_DEMO: 'true|false: create the demo account on first start (default true in embedded mode)',
  HERALD_LOG_LEVEL: `${LOG_LEVELS.join('|')} (default ${DEFAULT_LOG_LEVEL})`,
  HERALD_BODY_LIMIT: `largest body of POST /api/v1/message in bytes (default ${DEFAULT_BODY_LIMIT_BYTES})`,
  HERALD_WEBHOOK_BODY_LIMIT: `largest carrier webhook body in bytes (default ${DEFAULT_WEBHOOK_BODY_LIMIT_BYTES})`,
  HERALD_MNP_BODY_LIMIT:
    `largest number portability file (POST /admin/v1/mnp/import) in bytes ` +
    `(default ${DEFAULT_MNP_BODY_LIMIT_BYTES})`,
  HERALD_REQUEST_TIMEOUT_MS:
    `ms within which a whole request must arrive, else 408 ` + `(default ${DEFAULT_REQUEST_TIMEOUT_MS})`,
  HERALD_HEADERS_TIMEOUT_MS:
    `ms within which a request's headers must arrive, else 408; ` +
    `at most HERALD_REQUEST_TIMEOUT_MS (default ${DEFAULT_HEADERS_TIMEOUT_MS})`,
  HERALD_CURRENCY: `currency of new accounts, ISO 4217 (default ${DEFAULT_CURRENCY})`,
  HERALD_DB_POOL_SIZE: `PostgreSQL connections per process (default ${DEFAULT_DB_POOL_SIZE})`,
  HERALD_DB_IDLE_SECONDS:
    `seconds after which a pool's idle connection closes, beyond the 2 each pool keeps ` +
    `(1 to 86400; default ${DEFAULT_DB_IDLE_SECONDS})`,
  HERALD_DB_PREPARED_STATEMENTS:
    'true|false: name repeated long statements, prepared once a connection; false behind a transaction pooler that ' +
    'does not keep them, such as PgBouncer before 1.21 (default true)',
  HERALD_CONFIG: 'path of the JSON or YAML file with connectors, routes and tariffs (default unset)',
  HERALD_RETENTION_DAYS:
    'days after which finished messages, their submissions and finished callback deliveries are deleted ' +
    '(7 to 36500; default unset: kept forever)',
  HERALD_SHUTDOWN_SECONDS:
    `seconds a stopping process has to finish its work before it exits anyway ` +
    `(default ${DEFAULT_SHUTDOWN_SECONDS})`,
  HERALD_LEASE_SECONDS:
    `how long a worker's claim on a message or a callback delivery lasts (a callback delivery's at least ` +
    `HERALD_CALLBACK_TIMEOUT_MS and 5 s; default ${DEFAULT_LEASE_SECONDS})`,
  HERALD_REQUIRE_TARIFF: 'true|false: refuse messages no tariff prices instead of sending them free (default false)',
  HERALD_PUMPING_MODE:
    "hold|monitor|off: the most the pumping detection does for any account; hold lets each account's mode apply " +
    '(default hold)',
  HERALD_RATE_LIMIT:
    `client API requests per second per account and process, 0 for none ` + `(default ${DEFAULT_RATE_LIMIT})`,
  HERALD_AUTH_FAILURE_LIMIT:
    `failed authentications per minute per client address, 0 for none ` + `(default ${DEFAULT_AUTH_FAILURE_LIMIT})`,
  HERALD_ACCOUNT_CONCURRENCY:
    `client API requests of one account handled at once per process, 0 for no limit; more wait up to 5 s, then 429 ` +
    `(default ${DEFAULT_ACCOUNT_CONCURRENCY}; on PostgreSQL at most (HERALD_DB_POOL_SIZE - 1) / 2)`,
  HERALD_VERIFY_SENDS_PER_ADDRESS:
    `code sends per 10 minutes per account, client address and process, 0 for none ` +
    `(default ${DEFAULT_VERIFY_SENDS_PER_ADDRESS})`,
  HERALD_PASSWORD_HASH_CONCURRENCY:
    `password hashes (scrypt) at once per process, below libuv's thread pool size ` +
    `(default ${DEFAULT_PASSWORD_HASH_CONCURRENCY}, 1 on fewer than 3 cores)`,
  HERALD_PASSWORD_HASH_QUEUE:
    `password hashes that may wait for a turn; beyond, 503 5035 ` + `(default ${DEFAULT_PASSWORD_HASH_QUEUE})`,
  HERALD_PASSWORD_SCRYPT_COST:
    `scrypt's N of new password hashes as a power of two, 10-20 ` +
    `(default ${DEFAULT_PASSWORD_SCRYPT_COST}; lower only for tests)`,
  HERALD_METRICS_TOKEN: 'bearer token GET /metrics requires (default unset: open, for a private network)',
  HERALD_TRUST_PROXY:
    'false|true|<hops>|<addresses and CIDRs, comma-separated>: ' +
    'proxies whose X-Forwarded-For gives the client address (default false)',
  ...Object.fromEntries(Object.entries(TUNING).map(([name, t]) => [name, `${t.what} (default ${t.default})`])),
};

type Env = Readonly<Record<string, string | undefined>>;

function loadTuning(read: (name: string) => string | undefined): WorkerTuning {
  const tuning = Object.fromEntries(
    Object.entries(TUNING).map(([name, t]) => [
      t.field,
      optional(read(name), name, integerIn(t.min, t.max)) ?? t.default,
    ]),
  ) as unknown as WorkerTuning;
  if (tuning.callbackPerHost > tuning.callbackMaxInFlight) {
    throw new ConfigError(
      'HERALD_CALLBACK_PER_HOST',
      `must not exceed HERALD_CALLBACK_MAX_IN_FLIGHT (${tuning.callbackMaxInFlight})`,
    );
  }
  return Object.freeze(tuning);
}

/** Parses and validates the configuration; throws {@link ConfigError} on the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  for (const name of Object.keys(env)) {
    if (name.startsWith('HERALD_') && !(name in CONFIG_VARIABLES)) {
      throw new ConfigError(name, `unknown variable; known: ${Object.keys(CONFIG_VARIABLES).join(', ')}`);
    }
  }
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const databaseUrl = optional(read('DATABASE_URL'), 'DATABASE_URL', parsePostgresUrl);
  const embedded = databaseUrl === undefined;
  const readDatabaseUrl = optional(read('HERALD_READ_DATABASE_URL'), 'HERALD_READ_DATABASE_URL', parsePostgresUrl);
  // A replica of the embedded database cannot exist: refused rather than ignored.
  if (readDatabaseUrl !== undefined && embedded)
    throw new ConfigError('HERALD_READ_DATABASE_URL', 'needs DATABASE_URL (a replica of a PostgreSQL primary)');
  const listenDatabaseUrl =
    optional(read('HERALD_LISTEN_DATABASE_URL'), 'HERALD_LISTEN_DATABASE_URL', parsePostgresUrl) ?? databaseUrl;
  if (embedded && listenDatabaseUrl !== undefined) {
    throw new ConfigError('HERALD_LISTEN_DATABASE_URL', 'needs DATABASE_URL (the embedded database listens itself)');
  }
  const demo = optional(read('HERALD_DEMO'), 'HERALD_DEMO', parseBoolean) ?? embedded;
  const host = read('HERALD_HOST') ?? DEFAULT_HOST;
  const port = optional(read('HERALD_PORT'), 'HERALD_PORT', parsePort) ?? DEFAULT_PORT;
  const shortUrlBase =
    optional(read('HERALD_SHORT_URL_BASE'), 'HERALD_SHORT_URL_BASE', parseHttpBase) ??
    (demo ? `http://${host.includes(':') ? `[${host}]` : host}:${port}/s` : undefined);

  const requestTimeoutMs =
    optional(read('HERALD_REQUEST_TIMEOUT_MS'), 'HERALD_REQUEST_TIMEOUT_MS', integerIn(100, 3_600_000)) ??
    DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeoutMs =
    optional(read('HERALD_HEADERS_TIMEOUT_MS'), 'HERALD_HEADERS_TIMEOUT_MS', integerIn(100, 3_600_000)) ??
    Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeoutMs);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      'HERALD_HEADERS_TIMEOUT_MS',
      `must not exceed HERALD_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  const inboundPartsWaitSeconds =
    optional(
      read('HERALD_INBOUND_PARTS_WAIT_SECONDS'),
      'HERALD_INBOUND_PARTS_WAIT_SECONDS',
      integerIn(10, 7 * 86_400),
    ) ?? DEFAULT_INBOUND_PARTS_WAIT_SECONDS;
  const inboundPartsSweepSeconds =
    optional(read('HERALD_INBOUND_PARTS_SWEEP_SECONDS'), 'HERALD_INBOUND_PARTS_SWEEP_SECONDS', integerIn(1, 3600)) ??
    Math.min(DEFAULT_INBOUND_PARTS_SWEEP_SECONDS, inboundPartsWaitSeconds);
  if (inboundPartsSweepSeconds > inboundPartsWaitSeconds) {
    throw new ConfigError(
      'HERALD_INBOUND_PARTS_SWEEP_SECONDS',
      `must not exceed HERALD_INBOUND_PARTS_WAIT_SECONDS (${inboundPartsWaitSeconds})`,
    );
  }
  const dbPoolSize =
    optional(read('HERALD_DB_POOL_SIZE'), 'HERALD_DB_POOL_SIZE', integerIn(1, 1000)) ?? DEFAULT_DB_POOL_SIZE;
  // One account's requests must leave a connection to the others: a request may hold two at once (a list and its
  // total).
  const concurrencyCap = embedded ? 100_000 : Math.max(1, Math.floor((dbPoolSize - 1) / 2));
  const accountConcurrency =
    optional(read('HERALD_ACCOUNT_CONCURRENCY'), 'HERALD_ACCOUNT_CONCURRENCY', integerIn(0, 100_000)) ??
    Math.min(DEFAULT_ACCOUNT_CONCURRENCY, concurrencyCap);
  if (accountConcurrency > concurrencyCap) {
    throw new ConfigError(
      'HERALD_ACCOUNT_CONCURRENCY',
      `must not exceed (HERALD_DB_POOL_SIZE - 1) / 2 (${concurrencyCap}): one account would hold every connection`,
    );
  }
  // Every thread of the pool hashing would leave file reads and DNS lookups none (the process's own setting).
  const poolSize = Number(process.env.UV_THREADPOOL_SIZE) || LIBUV_DEFAULT_POOL_SIZE;
  const passwordHashConcurrency =
    optional(
      read('HERALD_PASSWORD_HASH_CONCURRENCY'),
      'HERALD_PASSWORD_HASH_CONCURRENCY',
      integerIn(1, Math.max(1, poolSize - 1)),
    ) ?? Math.max(1, Math.min(DEFAULT_PASSWORD_HASH_CONCURRENCY, poolSize - 1, availableParallelism() - 1));

  return Object.freeze({
    host,
    port,
    databaseUrl,
    readDatabaseUrl,
    listenDatabaseUrl,
    dataDir: path.resolve(read('HERALD_DATA_DIR') ?? DEFAULT_DATA_DIR),
    adminToken: optional(read('HERALD_ADMIN_TOKEN'), 'HERALD_ADMIN_TOKEN', parseAdminToken),
    simulators: optional(read('HERALD_SIMULATORS'), 'HERALD_SIMULATORS', parseOnOff) ?? embedded,
    simDelayMs:
      optional(read('HERALD_SIM_DELAY_MS'), 'HERALD_SIM_DELAY_MS', integerIn(0, 3_600_000)) ?? DEFAULT_SIM_DELAY_MS,
    shortUrlBase,
    callbackRetryIntervalS:
      optional(read('HERALD_CALLBACK_RETRY_INTERVAL'), 'HERALD_CALLBACK_RETRY_INTERVAL', integerIn(1, 86_400)) ??
      DEFAULT_CALLBACK_RETRY_INTERVAL_S,
    callbackRetryWindowS:
      optional(read('HERALD_CALLBACK_RETRY_WINDOW'), 'HERALD_CALLBACK_RETRY_WINDOW', integerIn(0, 30 * 86_400)) ??
      DEFAULT_CALLBACK_RETRY_WINDOW_S,
    callbackAllowPrivate:
      optional(read('HERALD_CALLBACK_ALLOW_PRIVATE'), 'HERALD_CALLBACK_ALLOW_PRIVATE', parseBoolean) ?? demo,
    callbackUrlsPerDay:
      optional(read('HERALD_CALLBACK_URLS_PER_DAY'), 'HERALD_CALLBACK_URLS_PER_DAY', integerIn(0, 10_000_000)) ??
      DEFAULT_CALLBACK_URLS_PER_DAY,
    inboundRulesPerAccount:
      optional(read('HERALD_INBOUND_RULES_PER_ACCOUNT'), 'HERALD_INBOUND_RULES_PER_ACCOUNT', integerIn(1, 100_000)) ??
      DEFAULT_INBOUND_RULES_PER_ACCOUNT,
    inboundRuleSenderNames:
      optional(read('HERALD_INBOUND_RULE_SENDER_NAMES'), 'HERALD_INBOUND_RULE_SENDER_NAMES', integerIn(1, 10_000)) ??
      DEFAULT_INBOUND_RULE_SENDER_NAMES,
    trafficCentersPerAccount:
      optional(
        read('HERALD_TRAFFIC_CENTERS_PER_ACCOUNT'),
        'HERALD_TRAFFIC_CENTERS_PER_ACCOUNT',
        integerIn(1, 100_000),
      ) ?? DEFAULT_TRAFFIC_CENTERS_PER_ACCOUNT,
    templatesPerAccount:
      optional(read('HERALD_TEMPLATES_PER_ACCOUNT'), 'HERALD_TEMPLATES_PER_ACCOUNT', integerIn(0, 1_000_000)) ??
      DEFAULT_TEMPLATES_PER_ACCOUNT,
    inboundPartsWaitSeconds,
    inboundPartsSweepSeconds,
    conversionPort: optional(read('HERALD_CONVERSION_PORT'), 'HERALD_CONVERSION_PORT', parsePort),
    smppPort: optional(read('HERALD_SMPP_PORT'), 'HERALD_SMPP_PORT', parsePort),
    smppTls: smppTlsOf(read('HERALD_SMPP_TLS_CERT'), read('HERALD_SMPP_TLS_KEY'), read('HERALD_SMPP_PORT')),
    smppRateLimit:
      optional(read('HERALD_SMPP_RATE_LIMIT'), 'HERALD_SMPP_RATE_LIMIT', integerIn(0, 1_000_000)) ??
      DEFAULT_SMPP_RATE_LIMIT,
    smppWindow: optional(read('HERALD_SMPP_WINDOW'), 'HERALD_SMPP_WINDOW', integerIn(1, 10_000)) ?? DEFAULT_SMPP_WINDOW,
    demo,
    logLevel: optional(read('HERALD_LOG_LEVEL'), 'HERALD_LOG_LEVEL', parseLogLevel) ?? DEFAULT_LOG_LEVEL,
    bodyLimitBytes:
      optional(read('HERALD_BODY_LIMIT'), 'HERALD_BODY_LIMIT', integerIn(1024, 1024 * 1024 * 1024)) ??
      DEFAULT_BODY_LIMIT_BYTES,
    webhookBodyLimitBytes:
      optional(read('HERALD_WEBHOOK_BODY_LIMIT'), 'HERALD_WEBHOOK_BODY_LIMIT', integerIn(1024, 1024 * 1024 * 1024)) ??
      DEFAULT_WEBHOOK_BODY_LIMIT_BYTES,
    mnpBodyLimitBytes:
      optional(read('HERALD_MNP_BODY_LIMIT'), 'HERALD_MNP_BODY_LIMIT', integerIn(1024 * 1024, 64 * 1024 ** 3)) ??
      DEFAULT_MNP_BODY_LIMIT_BYTES,
    requestTimeoutMs,
    headersTimeoutMs,
    currency: optional(read('HERALD_CURRENCY'), 'HERALD_CURRENCY', parseCurrency) ?? DEFAULT_CURRENCY,
    dbPoolSize,
    dbIdleSeconds:
      optional(read('HERALD_DB_IDLE_SECONDS'), 'HERALD_DB_IDLE_SECONDS', integerIn(1, 86_400)) ??
      DEFAULT_DB_IDLE_SECONDS,
    dbPreparedStatements:
      optional(read('HERALD_DB_PREPARED_STATEMENTS'), 'HERALD_DB_PREPARED_STATEMENTS', parseBoolean) ?? true,
    configFile: optional(read('HERALD_CONFIG'), 'HERALD_CONFIG', (v) => path.resolve(v)),
    leaseSeconds:
      optional(read('HERALD_LEASE_SECONDS'), 'HERALD_LEASE_SECONDS', integerIn(1, 3600)) ?? DEFAULT_LEASE_SECONDS,
    workers: loadTuning(read),
    retentionDays: optional(read('HERALD_RETENTION_DAYS'), 'HERALD_RETENTION_DAYS', integerIn(7, 36_500)),
    shutdownSeconds:
      optional(read('HERALD_SHUTDOWN_SECONDS'), 'HERALD_SHUTDOWN_SECONDS', integerIn(1, 3600)) ??
      DEFAULT_SHUTDOWN_SECONDS,
    requireTariff: optional(read('HERALD_REQUIRE_TARIFF'), 'HERALD_REQUIRE_TARIFF', parseBoolean) ?? false,
    pumpingMode: optional(read('HERALD_PUMPING_MODE'), 'HERALD_PUMPING_MODE', parsePumpingMode) ?? 'hold',
    exchangeRates: optional(read('HERALD_EXCHANGE_RATES'), 'HERALD_EXCHANGE_RATES', parseExchangeRates) ?? new Map(),
    rateLimit: optional(read('HERALD_RATE_LIMIT'), 'HERALD_RATE_LIMIT', integerIn(0, 1_000_000)) ?? DEFAULT_RATE_LIMIT,
    accountConcurrency,
    authFailureLimit:
      optional(read('HERALD_AUTH_FAILURE_LIMIT'), 'HERALD_AUTH_FAILURE_LIMIT', integerIn(0, 1_000_000)) ??
      DEFAULT_AUTH_FAILURE_LIMIT,
    verifySendsPerAddress:
      optional(read('HERALD_VERIFY_SENDS_PER_ADDRESS'), 'HERALD_VERIFY_SENDS_PER_ADDRESS', integerIn(0, 1_000_000)) ??
      DEFAULT_VERIFY_SENDS_PER_ADDRESS,
    passwordHashConcurrency,
    passwordHashQueue:
      optional(read('HERALD_PASSWORD_HASH_QUEUE'), 'HERALD_PASSWORD_HASH_QUEUE', integerIn(0, 100_000)) ??
      DEFAULT_PASSWORD_HASH_QUEUE,
    passwordScryptCost:
      optional(read('HERALD_PASSWORD_SCRYPT_COST'), 'HERALD_PASSWORD_SCRYPT_COST', integerIn(10, 20)) ??
      DEFAULT_PASSWORD_SCRYPT_COST,
    metricsToken: optional(read('HERALD_METRICS_TOKEN'), 'HERALD_METRICS_TOKEN', parseAdminToken),
    trustProxy: optional(read('HERALD_TRUST_PROXY'), 'HERALD_TRUST_PROXY', parseTrustProxy) ?? false,
  });
}

/** Variables whose values may hold a password or a token: a refusal names the variable, never the value. */
const SECRET_VARIABLES = new Set([
  'DATABASE_URL',
  'HERALD_READ_DATABASE_URL',
  'HERALD_LISTEN_DATABASE_URL',
  'HERALD_ADMIN_TOKEN',
  'HERALD_METRICS_TOKEN',
]);

/** The SMPP server's TLS files, both or neither, readable, and only with a port to serve them on. */
function smppTlsOf(
  cert: string | undefined,
  key: string | undefined,
  port: string | undefined,
): { cert: Buffer; key: Buffer } | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined) throw new ConfigError('HERALD_SMPP_TLS_CERT', 'is required with HERALD_SMPP_TLS_KEY');
  if (key === undefined) throw new ConfigError('HERALD_SMPP_TLS_KEY', 'is required with HERALD_SMPP_TLS_CERT');
  if (port === undefined) throw new ConfigError('HERALD_SMPP_TLS_CERT', 'is set but HERALD_SMPP_PORT is not');
  const readPem = (name: string, file: string): Buffer => {
    try {
      const pem = readFileSync(file);
      if (!pem.toString('latin1').includes('-----BEGIN ')) throw new Error('not a PEM file');
      return pem;
    } catch (error) {
      throw new ConfigError(name, `cannot be read: ${(error as Error).message}`);
    }
  };
  return { cert: readPem('HERALD_SMPP_TLS_CERT', cert), key: readPem('HERALD_SMPP_TLS_KEY', key) };
}

function optional<T>(value: string | undefined, name: string, parse: (value: string) => T): T | undefined {
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (error) {
    const shown = SECRET_VARIABLES.has(name) ? 'value not shown: it may hold a secret' : `got ${JSON.stringify(value)}`;
    throw new ConfigError(name, `${(error as Error).message} (${shown})`);
  }
}

function parseBoolean(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error('must be true or false');
}

function parsePumpingMode(value: string): PumpingMode {
  if (!(PUMPING_MODES as readonly string[]).includes(value))
    throw new Error(`must be one of ${PUMPING_MODES.join(', ')}`);
  return value as PumpingMode;
}

/** `USD/RUB=92.5,EUR/RUB=101`: one USD buys 92.5 RUB. */
function parseExchangeRates(value: string): Map<string, number> {
  const rates = new Map<string, number>();
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^([A-Z]{3})\/([A-Z]{3})=(\d+(?:\.\d+)?)$/.exec(entry);
    const rate = Number(match?.[3]);
    if (!match || match[1] === match[2] || !(rate > 0))
      throw new Error(`must be rates like USD/RUB=92.5, comma-separated, each above 0 (bad: ${entry})`);
    rates.set(`${match[1]}/${match[2]}`, rate);
  }
  return rates;
}

function parseOnOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new Error('must be on or off');
}

function integerIn(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new Error(`must be an integer from ${min} to ${max}`);
    const n = Number(value);
    if (n < min || n > max) throw new Error(`must be an integer from ${min} to ${max}`);
    return n;
  };
}

const parsePort = integerIn(0, 65_535);

function parsePostgresUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('must be a postgres:// or postgresql:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error('must be a postgres:// or postgresql:// URL');
  }
  return value;
}

function parseHttpBase(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be an absolute http(s) URL');
  if (url.search || url.hash) throw new Error('must not have a query or fragment');
  return value.replace(/\/+$/, '');
}

/** Short admin tokens are guessable; 24 characters of a random string is the floor. */
function parseAdminToken(value: string): string {
  if (value.length < 24) throw new Error('must be at least 24 characters');
  return value;
}

/** Behind a proxy every request comes from the proxy's address: one client's failed logins would block them all. */
function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d+$/.test(value)) return integerIn(1, 100)(value);
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => !/^[\da-fA-F.:]+(\/\d{1,3})?$/.test(entry))) {
    throw new Error('must be true, false, a number of hops, or comma-separated addresses and CIDRs');
  }
  return entries.join(',');
}

function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
  return value as LogLevel;
}

function parseCurrency(value: string): string {
  if (!/^[A-Z]{3}$/.test(value)) throw new Error('must be a three-letter ISO 4217 code such as RUB');
  return value;
}
