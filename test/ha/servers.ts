import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/waitFor.js';

/**
 * Database servers of a test's own, on loopback ports, built from the machine's Debian packages: PostgreSQL servers
 * (a primary and its streaming standbys) in temporary directories, and PgBouncer. The shared server on 5432 stays
 * up for every other test. As root, each runs as the postgres user (PostgreSQL and PgBouncer refuse root). Every
 * step is bounded in time; a test stops what it started in its afterEach/afterAll.
 */

/** No tool of a start or stop may take longer: a stuck server fails the test instead of hanging the suite. */
const STEP_TIMEOUT_MS = 60_000;
/** A PgBouncer left behind by a crashed test process exits by itself after this. */
const PGBOUNCER_LIFETIME_S = 900;

/** Debian's package pgbouncer. */
const PGBOUNCER = '/usr/sbin/pgbouncer';

const AS_ROOT = process.getuid?.() === 0;

export function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries under ${root}`);
  return path.join(root, versions[0]!, 'bin');
}

/** Ports below Linux's ephemeral range (32768-60999), from which outgoing connections take their own ports. */
const PORTS = { from: 20_000, to: 32_000 };
const handedOut = new Set<number>();

/**
 * A free loopback port for a server that a test starts later (PostgreSQL, Patroni, etcd, HAProxy, PgBouncer). Not
 * one of bind(0)'s: those lie in the ephemeral range, where between this check and the server's own bind any of
 * the thousands of connections the other test files open could take it as its local port, and the server would not
 * start. A port is handed out once per process.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = PORTS.from + Math.floor(Math.random() * (PORTS.to - PORTS.from));
    if (handedOut.has(port)) continue;
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!free) continue;
    await new Promise((resolve) => server.close(resolve));
    handedOut.add(port);
    return port;
  }
}

/** A temporary directory the servers' user owns. */
function serverDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  if (AS_ROOT) chownSync(dir, postgresId('-u'), postgresId('-g'));
  return dir;
}

function postgresId(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres']).toString());
}

/** The command line of `tool` as the servers' user. */
function asServerUser(tool: string, args: string[]): [string, string[]] {
  return AS_ROOT ? ['runuser', ['-u', 'postgres', '--', tool, ...args]] : [tool, args];
}

function run(tool: string, args: string[]): void {
  const [command, commandArgs] = asServerUser(tool, args);
  // From a directory the servers' user may enter: the test's own may be closed to it (a fresh clone, mode 700).
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', timeout: STEP_TIMEOUT_MS, cwd: tmpdir() });
  if (result.status !== 0)
    throw new Error(`${path.basename(tool)} failed: ${result.error?.message ?? ''}${result.stderr || result.stdout}`);
}

/** A PostgreSQL server of the test's own. */
export interface PostgresServer {
  /** Superuser URL of its `postgres` database. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Stops it in fast mode: sessions are terminated at once, as in a restart by an operator or a failover. */
  stop(): void;
  start(): void;
  /** Stops it at once if it runs and removes its files. */
  destroy(): void;
}

/**
 * A new PostgreSQL server (initdb, trust on loopback, fsync off unless `durable`: durability across a power cut is
 * not what the tests examine; a benchmark that counts WAL flushes wants them real). It can be the primary of
 * streaming standbys: wal_level is replica by default, and initdb's pg_hba.conf lets loopback replication
 * connections in.
 */
export async function startPostgres(
  options: { durable?: boolean; settings?: Readonly<Record<string, string>> } = {},
): Promise<PostgresServer> {
  const bin = binDir();
  const dir = serverDir('herald-pg-');
  const data = path.join(dir, 'data');
  run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  return launch(bin, dir, data, options.durable === true, options.settings);
}

/**
 * A streaming standby of `primary` (pg_basebackup -R: it follows the primary and answers read-only queries). Its
 * replay can be paused with `SELECT pg_wal_replay_pause()` to make it lag.
 */
export async function startStandby(primary: PostgresServer): Promise<PostgresServer> {
  const bin = binDir();
  const dir = serverDir('herald-standby-');
  const data = path.join(dir, 'data');
  run(path.join(bin, 'pg_basebackup'), [
    ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
    ...['-D', data, '-R', '-X', 'stream', '--no-sync', '-c', 'fast'],
  ]);
  return launch(bin, dir, data);
}

async function launch(
  bin: string,
  dir: string,
  data: string,
  durable = false,
  settings: Readonly<Record<string, string>> = {},
): Promise<PostgresServer> {
  const port = await freePort();
  const fsync = durable ? 'on' : 'off';
  const extra = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
  const options =
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${fsync} -c max_connections=200` + extra.join('');
  const pgCtl = path.join(bin, 'pg_ctl');
  const timeout = ['-t', String(STEP_TIMEOUT_MS / 1000 - 5)];
  const start = (): void =>
    run(pgCtl, ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', ...timeout, 'start']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir: data,
    start,
    stop: () => run(pgCtl, ['-D', data, '-m', 'fast', '-w', ...timeout, 'stop']),
    destroy() {
      try {
        run(pgCtl, ['-D', data, '-m', 'immediate', '-w', ...timeout, 'stop']);
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PgBouncer database entry for one schema of a PostgreSQL server (`url`): its server connections put the schema on
 * their search path (connect_query), as clients of a transaction pooler cannot (PgBouncer refuses `options`).
 */
export function schemaDatabase(url: string, schema: string): string {
  const server = new URL(url);
  return (
    `host=${server.hostname} port=${server.port || 5432} dbname=${server.pathname.slice(1)} ` +
    `connect_query='SET search_path = ${schema}'`
  );
}

/**
 * What Herald needs behind these PgBouncers (Debian 12's 1.18, which keeps no prepared statements in transaction mode),
 * as docs/scaling.md tells operators: its tests' and benchmark's Herald processes take it.
 */
export const BEHIND_PGBOUNCER: Readonly<Record<string, string>> = { HERALD_DB_PREPARED_STATEMENTS: 'false' };

/** A PgBouncer of the test's own. */
export interface PgBouncer {
  readonly port: number;
  /** The URL of one of its databases (a name of `databases`), as user postgres. */
  url(database: string): string;
  /** Its admin console (database `pgbouncer`, simple queries only: SHOW POOLS, SHOW STATS). */
  readonly adminUrl: string;
  /** Stops it (SIGINT: at once, closing every connection) and removes its files. */
  stop(): Promise<void>;
}

/**
 * PgBouncer on a free loopback port in transaction mode: a server connection belongs to a client for one
 * transaction only, so nothing of a session (SET, session advisory locks, named prepared statements, temporary
 * tables, LISTEN) survives from one transaction to the next. `databases` maps each database name clients use to its
 * libpq connection string (e.g. `host=127.0.0.1 port=5432 dbname=test`); `poolSize` server connections per
 * database and user.
 */
export async function startPgBouncer(options: {
  databases: Readonly<Record<string, string>>;
  poolSize: number;
  /** How long a client waits for a server connection before PgBouncer fails its query (its default: 120). */
  queryWaitTimeoutS?: number;
}): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install pgbouncer (.ci/run does)`);
  const dir = serverDir('herald-pgbouncer-');
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  const pidFile = path.join(dir, 'pgbouncer.pid');
  const logFile = path.join(dir, 'pgbouncer.log');
  writeFileSync(
    ini,
    [
      '[databases]',
      ...Object.entries(options.databases).map(([name, target]) => `${name} = ${target}`),
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize}`,
      'max_client_conn = 1000',
      `query_wait_timeout = ${options.queryWaitTimeoutS ?? 120}`,
      // After a failed server connection (a failover), PgBouncer waits this long before the next: 15 s by default.
      'server_login_retry = 1',
      `pidfile = ${pidFile}`,
      `logfile = ${logFile}`,
    ].join('\n') + '\n',
  );
  writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
  if (AS_ROOT)
    for (const file of ['pgbouncer.ini', 'userlist.txt'])
      chownSync(path.join(dir, file), postgresId('-u'), postgresId('-g'));
  // In the foreground under timeout(1): it ends with the test, or by itself should the test process die.
  const [command, args] = asServerUser('timeout', [String(PGBOUNCER_LIFETIME_S), PGBOUNCER, ini]);
  const child: ChildProcess = spawn(command, args, { stdio: 'ignore', cwd: tmpdir() });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor(async () => !gone && (await accepts(port)), {
    timeoutMs: STEP_TIMEOUT_MS,
    describe: () => (gone ? `pgbouncer exited: ${readLog(logFile)}` : 'pgbouncer does not listen'),
  }).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; ${readLog(logFile)}`);
  });
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/pgbouncer`,
    async stop() {
      if (!gone) {
        // runuser and timeout pass no signal on reliably: PgBouncer's own pid, from its pid file.
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        process.kill(pid, 'SIGINT');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STEP_TIMEOUT_MS))]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-2000);
  } catch {
    return '(no log)';
  }
}
