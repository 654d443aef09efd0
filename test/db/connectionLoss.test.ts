import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/connectionErrors.js';
import { openPostgres } from '../../src/db/postgresDb.js';

/** One backend message of the PostgreSQL protocol: a type byte, its length, its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const AUTH_OK = message('R', Buffer.from([0, 0, 0, 0]));
const READY = message('Z', Buffer.from('I', 'latin1'));

/**
 * A server that speaks just enough of PostgreSQL's protocol for the driver: `answer` is given each connection's
 * socket once the client has sent its startup message (the first thing a client sends).
 */
async function fakeServer(answer: (socket: net.Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => answer(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `postgres://herald@127.0.0.1:${port}/herald`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A server that accepts a connection and then loses it the way a primary whose postmaster died does:
 * AuthenticationOk, ReadyForQuery and a FATAL 57P01, all in one write. The driver hands the client over on
 * ReadyForQuery and reads the FATAL in the same turn, before the borrower awaiting the client can listen on it.
 */
function dyingServer(when: 'at start' | 'after the first statement' = 'at start') {
  const fields = (pairs: [string, string][]): Buffer =>
    Buffer.concat([...pairs.map(([code, text]) => Buffer.from(`${code}${text}\0`, 'utf8')), Buffer.from([0])]);
  const done = message('C', Buffer.from('SET\0', 'latin1'));
  const fatal = message(
    'E',
    fields([
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '57P01'],
      ['M', 'terminating connection due to unexpected postmaster exit'],
    ]),
  );
  return fakeServer((socket) => {
    if (when === 'at start') socket.end(Buffer.concat([AUTH_OK, READY, fatal]));
    else {
      socket.write(Buffer.concat([AUTH_OK, READY]));
      // The connection's first statement (its setting) completes, and the FATAL comes in the same read.
      socket.once('data', () => socket.end(Buffer.concat([done, READY, fatal])));
    }
  });
}

/** A server that accepts a connection (AuthenticationOk, ReadyForQuery) and then never answers: a stalled primary. */
const silentServer = () => fakeServer((socket) => socket.write(Buffer.concat([AUTH_OK, READY])));

describe('a connection lost as it is handed over (the PostgreSQL driver; PGlite has no connections)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it.each(['at start', 'after the first statement'] as const)(
    'fails the transaction that borrowed it instead of ending the process (lost %s)',
    async (when) => {
      const server = await dyingServer(when);
      closers.push(server.close);
      const db = openPostgres({ url: server.url, poolSize: 2 });
      closers.push(() => db.close());

      // Without a listener on the client from its first moment, the FATAL was an unhandled 'error' event: the
      // worker of a failover test died of it. Here the process lives on and the caller is told what the server said,
      // which the API answers 503 5031.
      const failed = await db.transaction((tx) => tx.query('SELECT 1')).catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: '57P01' });
      expect(isDatabaseUnavailable(failed)).toBe(true);
      await expect(db.query('SELECT 1')).rejects.toThrow();
      // Both broken clients were destroyed rather than returned to the pool for the next caller.
      expect(db.poolStats?.()).toEqual({ total: 0, idle: 0, waiting: 0 });
    },
  );

  it('fails the borrower of a connection whose setting is never answered, within the connect timeout', async () => {
    const server = await silentServer();
    closers.push(server.close);
    const db = openPostgres({ url: server.url, poolSize: 2, connectTimeoutMs: 1000 });
    closers.push(() => db.close());

    // The pool's own timeout ends once the connection is made: without one of the setting's, this waited for ever.
    const failed = await db.query('SELECT 1').catch((error: unknown) => error);
    expect(failed).toMatchObject({ message: expect.stringMatching(/SET jit = off not answered/) });
    expect(isDatabaseUnavailable(failed)).toBe(true);
    expect(db.poolStats?.()).toEqual({ total: 0, idle: 0, waiting: 0 });
  });
});
