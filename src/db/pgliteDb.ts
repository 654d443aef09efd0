import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { accountScopeUse, currentAccount } from './accountScope.js';
import { runAfterCommit } from './afterCommit.js';
import type { Db, Queryable } from './db.js';
import { commitError } from './connectionErrors.js';
import { FairQueue, type Taken } from './fairQueue.js';
import { wakeChannel, type WakeTopic } from './wake.js';

/**
 * Settings of the embedded server. PostgreSQL's default 128 MB of shared buffers were most of an idle Herald's
 * resident memory (PGlite's WebAssembly memory only grows); with 16 MB an idle Herald stays under 250 MB, and the
 * operating system's page cache still holds the database's files.
 */
const SETTINGS = ['-c', 'shared_buffers=16MB'];

/**
 * Creates a new database folder (initdb) in a short-lived process: initdb's WebAssembly memory, some 500 MB that a
 * process never hands back, leaves with it, and Herald then opens the folder as on any later start.
 */
async function createInChild(dataDir: string): Promise<void> {
  const module = import.meta.resolve('@electric-sql/pglite');
  const code =
    `const { PGlite } = await import(${JSON.stringify(module)});` +
    `const db = await PGlite.create(${JSON.stringify(dataDir)}); await db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [exitCode] = (await once(child, 'exit')) as [number | null];
  if (exitCode !== 0) throw new Error(`creating the embedded database in ${dataDir} failed: ${stderr.trim()}`);
}

/** One turn of the event loop: timers and sockets run before the next statement. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Requests' statements run at most this many in a row while background work waits, so that it never starves. */
const REQUESTS_IN_A_ROW = 4;

interface Job {
  readonly work: () => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A {@link Db} over PGlite, the embedded PostgreSQL. `dataDir` is a folder, or `memory://` for tests;
 * `loadDataDir` starts a new database from a tarball of another ({@link Db.dumpDataDir}) instead of running initdb,
 * which takes 3-4 s of one core (1 s to load a 40 MB tarball instead).
 *
 * PGlite has one connection and runs each statement on this process's own thread. Left to itself, statements
 * queued by many callers run back to back without the event loop turning in between, so a burst of them (an
 * account's callbacks being delivered, say) starved every other request for as long as it lasted (1.3 s, measured
 * with 300 callbacks in flight). Statements therefore take turns here, one at a time, with a turn of the event loop
 * before each; and the statements of requests go ahead of those of background work ({@link Db.background}), up to
 * {@link REQUESTS_IN_A_ROW} in a row, so that a request waits for a few statements, not for a worker's backlog.
 *
 * Among requests, the statements are served fairly across accounts ({@link FairQueue}, by the time each account's
 * statements took; the account is the one the request runs as, accountScope.ts): first come first served, 16 heavy
 * reads of one account queued some 30 statements of 15-30 ms in front of every statement of another account's send
 * (its p99 480 ms). Statements of no account (token lookups, the operator API, sign-in) share a lane of their own.
 */
export async function openPglite(dataDir: string, options: { loadDataDir?: Blob } = {}): Promise<Db> {
  accountScopeUse();
  if (!options.loadDataDir && !dataDir.includes('://') && !existsSync(path.join(dataDir, 'PG_VERSION')))
    await createInChild(dataDir);
  const pglite = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, ...SETTINGS],
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  const requests = new FairQueue<Job>();
  const backlog: Job[] = [];
  let running = false;
  let inARow = 0;
  let idle: (() => void) | undefined;

  const pick = (): Taken<Job> | undefined => {
    if (requests.size > 0 && (inARow < REQUESTS_IN_A_ROW || backlog.length === 0)) {
      inARow++;
      return requests.shift();
    }
    inARow = 0;
    const job = backlog.shift();
    return job ? { item: job, charge: () => undefined } : requests.shift();
  };
  const next = async (): Promise<void> => {
    const taken = pick();
    if (!taken) {
      running = false;
      idle?.();
      return;
    }
    const { item: job } = taken;
    const started = performance.now();
    try {
      job.resolve(await job.work());
    } catch (error) {
      job.reject(error);
    } finally {
      taken.charge(performance.now() - started);
    }
    setImmediate(() => void next());
  };
  const start = (): void => {
    if (!running) {
      running = true;
      setImmediate(() => void next());
    }
  };
  type Queue = 'requests' | 'background';
  const gate =
    (queue: Queue) =>
    <T>(work: () => Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const job = { work, resolve: resolve as (value: unknown) => void, reject };
        // Background work is the workers' own, whatever started it: it keeps its turn, not an account's.
        if (queue === 'requests') requests.push(currentAccount(), job);
        else backlog.push(job);
        start();
      });

  const on = (target: Pick<PGlite, 'query' | 'exec'>, run: <T>(work: () => Promise<T>) => Promise<T>): Queryable => ({
    query: <R>(sql: string, params: readonly unknown[] = []): Promise<R[]> =>
      run(async () => (await target.query<R>(sql, params as unknown[])).rows),
    exec: (sql: string): Promise<void> =>
      run(async () => {
        await target.exec(sql);
      }),
  });
  // Inside a transaction the statements are the transaction's own: they take a turn, not a place in the queue.
  const inTransaction = async <T>(work: () => Promise<T>): Promise<T> => {
    await turn();
    return work();
  };

  const view = (queue: Queue): Db => {
    const run = gate(queue);
    const db: Db = {
      engine: 'pglite',
      ...on(pglite, run),
      // An error after fn returned is COMMIT's (a deferred trigger's): wrapped by commitError, as postgresDb.ts does.
      transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> =>
        run(async () => {
          let committing = false;
          let queryable: Queryable | undefined;
          try {
            const result = await pglite.transaction(async (tx) => {
              queryable = on(tx, inTransaction);
              const answer = await fn(queryable);
              committing = true;
              return answer;
            });
            runAfterCommit(queryable!);
            return result;
          } catch (error) {
            throw committing ? commitError(error) : error;
          }
        }),
      background: () => background,
      dumpDataDir: () => run(async () => pglite.dumpDataDir('none')),
      // PGlite's own LISTEN: its one connection hears the notifications of its own commits (of api and worker in
      // this one process), and is never lost, so there is nothing to make again.
      async listenWakeups(listener) {
        const [row] = await run(
          async () => (await pglite.query<{ schema: string }>('SELECT current_schema() AS schema')).rows,
        );
        const unlisten = await pglite.listen(wakeChannel(row?.schema ?? 'public'), (topic) =>
          listener.onWake(topic as WakeTopic),
        );
        listener.onListening();
        return () => unlisten();
      },
      async close(): Promise<void> {
        if (running) await new Promise<void>((resolve) => (idle = resolve));
        await pglite.close();
      },
    };
    return db;
  };
  const background = view('background');
  return view('requests');
}
