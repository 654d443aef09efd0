import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { binDir, freePort } from './servers.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * A PostgreSQL primary and a synchronous standby managed by Patroni (Debian's `patroni`, with `etcd-server` as its
 * store), reached through HAProxy, which sends connections only to the node whose Patroni REST API answers
 * `GET /primary` with 200. Everything runs on loopback ports with data in one temporary directory; PostgreSQL runs
 * as the `postgres` user (Patroni refuses root). The settings that matter are those of docs/scaling.md, Failover.
 */
export interface PatroniCluster {
  /** Through HAProxy: always the primary, or a refused connection while there is none. */
  readonly url: string;
  readonly nodes: readonly PatroniNode[];
  /** The members as Patroni sees them (`GET /cluster`), from any node that answers. */
  members(): Promise<PatroniMember[]>;
  /** Waits until the cluster has a running leader other than `not` and (unless `standby` is false) a sync standby. */
  waitForLeader(options: { not?: string; standby?: boolean; timeoutMs: number }): Promise<PatroniNode>;
  /** `kill -9` of a node's postmaster, as a crash of PostgreSQL: Patroni on that node sees it within a loop. */
  killPostmaster(node: PatroniNode): void;
  /** The last lines each process wrote, for a failing test's message. */
  logs(): string;
  /** Kills every process (HAProxy, Patroni, PostgreSQL, etcd) and removes the directory. Never throws. */
  destroy(): Promise<void>;
}

export interface PatroniNode {
  readonly name: string;
  readonly pgPort: number;
  readonly apiPort: number;
  readonly dataDir: string;
}

export interface PatroniMember {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  timeline?: number;
}

/** Where Debian puts the tools; the test skips itself when they are missing (`.ci/run` installs them). */
export const PATRONI_TOOLS = ['/usr/bin/patroni', '/usr/bin/etcd', '/usr/sbin/haproxy'];
export const patroniInstalled = (): boolean => PATRONI_TOOLS.every((tool) => existsSync(tool));

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  /** The first LOG_HEAD characters: how the start went. */
  head: string;
  /** The last 20 kB: what happened last. */
  log: string;
}

/**
 * The cluster's timing. A crashed primary is failed over at once instead of restarted in place
 * (`primary_start_timeout: 0`); Patroni loops every second; a node lost whole (Patroni with it) is replaced when
 * its leader key expires (`ttl`). HAProxy checks every 500 ms, takes a node out after two failed checks or one
 * refused connection, and back after two passed checks.
 */
const DCS = {
  ttl: 20,
  loop_wait: 1,
  retry_timeout: 5,
  maximum_lag_on_failover: 1048576,
  primary_start_timeout: 0,
  synchronous_mode: true,
  synchronous_mode_strict: false,
  postgresql: {
    use_pg_rewind: true,
    use_slots: true,
    parameters: {
      synchronous_commit: 'on',
      max_connections: 200,
      wal_level: 'replica',
      hot_standby: 'on',
      max_wal_senders: 10,
      max_replication_slots: 10,
      wal_keep_size: '128MB',
      // As in test/ha/servers.ts: these tests kill processes, not the machine; the OS keeps what
      // was written. A standby's acknowledgement still means the WAL was written there.
      fsync: 'off',
    },
  },
};

/** Characters kept of the start of each process's output. */
const LOG_HEAD = 6000;

export async function startPatroniCluster(options: { startTimeoutMs: number }): Promise<PatroniCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-patroni-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  const asRoot = process.getuid?.() === 0;
  const procs: Proc[] = [];
  const nodes: PatroniNode[] = [];
  let destroyed = false;

  const run = (name: string, command: string, args: string[], asPostgres: boolean): Proc => {
    const child = spawn(command, args, {
      // Its own process group, so that the whole of it (Patroni and its pg_basebackup) is killed at once.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // In the cluster's directory, which the postgres user owns: the test's own directory may be closed to it (a
      // fresh clone in a mkdtemp folder, mode 700), and there a bootstrap started (initdb: "could not change
      // directory") and never ended.
      cwd: dir,
      env: { ...process.env, HOME: dir, PYTHONUNBUFFERED: '1' },
      ...(asPostgres && asRoot ? { uid, gid } : {}),
    });
    const proc: Proc = { name, child, head: '', log: '' };
    const onData = (chunk: Buffer): void => {
      if (proc.head.length < LOG_HEAD) proc.head = (proc.head + chunk.toString()).slice(0, LOG_HEAD);
      proc.log = (proc.log + chunk.toString()).slice(-20_000);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', (error) => onData(Buffer.from(`spawn failed: ${error.message}\n`)));
    procs.push(proc);
    return proc;
  };

  const postmasterPid = (node: PatroniNode): number | undefined => {
    try {
      return Number(readFileSync(path.join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  const kill = (pid: number | undefined, signal: NodeJS.Signals): void => {
    if (!pid) return;
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  };
  // Synchronous, so that it also runs from an 'exit' handler: a worker that dies must not leave servers behind.
  const killAll = (): void => {
    for (const proc of [...procs].reverse()) if (proc.child.pid) kill(-proc.child.pid, 'SIGKILL');
    // Patroni starts each postmaster in a session of its own: killed by its pid file. SIGQUIT is PostgreSQL's
    // immediate shutdown, which takes the backends with it; SIGKILL follows in destroy().
    for (const node of nodes) kill(postmasterPid(node), 'SIGQUIT');
  };
  process.once('exit', killAll);

  // The head says how a start went (a bootstrap that never ended); the tail, what happened last (Patroni's REST API
  // writes a traceback for each request its client gave up on, which alone filled the tail of a failed start).
  const logs = (): string =>
    procs
      .map((p) => `--- ${p.name}\n${p.log.length > 4000 ? `${p.head}\n[...]\n${p.log.slice(-4000)}` : p.log}`)
      .join('\n');

  const cluster: PatroniCluster = {
    url: '',
    nodes,
    async members() {
      for (const node of nodes) {
        try {
          const response = await fetch(`http://127.0.0.1:${node.apiPort}/cluster`, {
            signal: AbortSignal.timeout(2000),
          });
          if (response.ok) return ((await response.json()) as { members: PatroniMember[] }).members;
        } catch {
          // This node's Patroni does not answer: ask the next.
        }
      }
      return [];
    },
    async waitForLeader({ not, standby = true, timeoutMs }) {
      let seen: PatroniMember[] = [];
      const leader = await waitFor(
        async () => {
          seen = await cluster.members();
          const lead = seen.find((m) => m.role === 'leader' && m.state === 'running' && m.name !== not);
          const sync = seen.find((m) => m.role === 'sync_standby' && m.state === 'running');
          return lead && (!standby || sync) ? lead : undefined;
        },
        { timeoutMs, intervalMs: 200, describe: () => `members: ${JSON.stringify(seen)}\n${logs()}` },
      );
      return nodes.find((n) => n.name === leader.name)!;
    },
    killPostmaster(node) {
      const pid = postmasterPid(node);
      if (!pid) throw new Error(`no postmaster.pid in ${node.dataDir}`);
      process.kill(pid, 'SIGKILL');
    },
    logs,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      killAll();
      // The postmasters get a moment for their immediate shutdown, then SIGKILL; backends orphaned by a killed
      // postmaster leave by themselves when they see it gone.
      await waitFor(() => nodes.every((n) => !alive(postmasterPid(n))), { timeoutMs: 5000 }).catch(() => undefined);
      for (const node of nodes) kill(postmasterPid(node), 'SIGKILL');
      await Promise.all(
        procs.map((p) =>
          !p.child.pid || p.child.exitCode !== null || p.child.signalCode !== null
            ? undefined
            : new Promise((resolve) => p.child.once('exit', resolve)),
        ),
      );
      process.removeListener('exit', killAll);
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    if (asRoot) chownSync(dir, uid, gid);
    const [etcdClient, etcdPeer, haproxyPort] = [await freePort(), await freePort(), await freePort()];
    run(
      'etcd',
      '/usr/bin/etcd',
      [
        '--name=herald',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=herald=http://127.0.0.1:${etcdPeer}`,
        '--log-level=warn',
      ],
      false,
    );
    const deadline = Date.now() + options.startTimeoutMs;
    const left = (): number => Math.max(1000, deadline - Date.now());
    await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${etcdClient}/health`).catch(() => undefined);
        return response?.ok && ((await response.json()) as { health: string }).health === 'true';
      },
      { timeoutMs: left(), intervalMs: 100, describe: logs },
    );

    const scope = `herald-${path.basename(dir)}`;
    for (const name of ['node0', 'node1']) {
      const nodeDir = path.join(dir, name);
      mkdirSync(nodeDir, { mode: 0o700 });
      if (asRoot) chownSync(nodeDir, uid, gid);
      const node: PatroniNode = {
        name,
        pgPort: await freePort(),
        apiPort: await freePort(),
        dataDir: path.join(nodeDir, 'data'),
      };
      nodes.push(node);
      const config = {
        scope,
        name,
        log: { level: 'INFO' },
        restapi: { listen: `127.0.0.1:${node.apiPort}`, connect_address: `127.0.0.1:${node.apiPort}` },
        etcd3: { hosts: [`127.0.0.1:${etcdClient}`] },
        bootstrap: {
          dcs: DCS,
          initdb: [{ encoding: 'UTF8' }, { 'auth-local': 'trust' }, { 'auth-host': 'trust' }, 'no-sync'],
        },
        postgresql: {
          listen: `127.0.0.1:${node.pgPort}`,
          connect_address: `127.0.0.1:${node.pgPort}`,
          data_dir: node.dataDir,
          bin_dir: binDir(),
          pgpass: path.join(nodeDir, 'pgpass'),
          authentication: {
            superuser: { username: 'postgres', password: 'postgres' },
            replication: { username: 'replicator', password: 'replicator' },
          },
          // Loopback only, trusted: the test's clients, Patroni and the standby's replication connection.
          pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
          parameters: { unix_socket_directories: nodeDir },
        },
        watchdog: { mode: 'off' },
        tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
      };
      const configPath = path.join(nodeDir, 'patroni.json');
      // JSON is YAML: Patroni reads it as its configuration file.
      writeFileSync(configPath, JSON.stringify(config, null, 2));
      if (asRoot) chownSync(configPath, uid, gid);
      run(name, '/usr/bin/patroni', [configPath], true);
    }

    const haproxyConfig = path.join(dir, 'haproxy.cfg');
    writeFileSync(
      haproxyConfig,
      [
        'global',
        '  maxconn 1000',
        'defaults',
        '  mode tcp',
        '  timeout connect 2s',
        '  timeout client 30m',
        '  timeout server 30m',
        '  timeout check 2s',
        // A connection to a node that refuses it is cut at once rather than tried again three times a second
        // apart: Herald answers 503 at once and its client retries, by then perhaps on the new primary.
        '  retries 0',
        'listen primary',
        `  bind 127.0.0.1:${haproxyPort}`,
        // Patroni answers GET /primary with 200 only on the leader with PostgreSQL running.
        '  option httpchk',
        '  http-check send meth GET uri /primary',
        '  http-check expect status 200',
        // A node marked down loses its sessions at once: no client stays on a server that is no longer primary.
        // A refused connection marks a node down at once, before its checks fail (its Patroni may still answer
        // 200 for a second or two after PostgreSQL died).
        '  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions' +
          ' observe layer4 error-limit 1 on-error mark-down',
        ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.apiPort}`),
        '',
      ].join('\n'),
    );
    run('haproxy', '/usr/sbin/haproxy', ['-db', '-f', haproxyConfig], false);
    (cluster as { url: string }).url = `postgres://postgres@127.0.0.1:${haproxyPort}/postgres`;

    await cluster.waitForLeader({ timeoutMs: left() });
    // HAProxy has seen the leader's check pass: a write through it succeeds.
    await waitFor(() => writable(cluster.url), { timeoutMs: left(), intervalMs: 200, describe: logs });
    return cluster;
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function writable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const rows = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
    return rows.rows[0]!.recovery === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
