import { describe, expect, it } from 'vitest';
import { asAccount } from '../../src/db/accountScope.js';
import { FairQueue } from '../../src/db/fairQueue.js';
import { openTestDb } from '../helpers/engines.js';

/** Serves the whole queue, charging each item the cost `costOf` gives it; returns the items in the order served. */
function drain<T>(queue: FairQueue<T>, costOf: (item: T) => number): T[] {
  const served: T[] = [];
  for (let taken = queue.shift(); taken; taken = queue.shift()) {
    served.push(taken.item);
    taken.charge(costOf(taken.item));
  }
  return served;
}

describe('the fair queue', () => {
  it('serves each key first come first served, and keys in turn when their items cost the same', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    for (const item of ['b1', 'b2']) queue.push('b', item);
    queue.push(undefined, 'none1');
    expect(queue.size).toBe(7);
    expect(drain(queue, () => 10)).toEqual(['a1', 'b1', 'none1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
  });

  it("serves a cheap key's item next, however many costly items another key keeps queued", () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 16; i++) queue.push('heavy', `heavy${i}`);
    // The light key sends one item at a time, the next once the previous was served (as a request's statements
    // come); the first while heavy1 is being served.
    let light = 0;
    const served: string[] = [];
    for (let taken = queue.shift(); taken; taken = queue.shift()) {
      served.push(taken.item);
      if (light < 3 && (served.length === 1 || taken.item.startsWith('light'))) queue.push('light', `light${++light}`);
      taken.charge(taken.item.startsWith('heavy') ? 30 : 1);
    }
    // Each light item waits for the heavy one in service, never for the heavy key's backlog.
    expect(served.slice(0, 5)).toEqual(['heavy1', 'light1', 'light2', 'light3', 'heavy2']);
  });

  it('gives a key that comes back after a pause no turns banked while it was idle', () => {
    const queue = new FairQueue<string>();
    queue.push('busy', 'busy1');
    drain(queue, () => 100);
    for (let i = 2; i <= 5; i++) queue.push('busy', `busy${i}`);
    queue.shift()!.charge(100);
    // 'idle' arrives now: level with 'busy' (which used 200 by now), not 200 ahead of it.
    for (let i = 1; i <= 3; i++) queue.push('idle', `idle${i}`);
    expect(drain(queue, () => 100)).toEqual(['idle1', 'busy3', 'idle2', 'busy4', 'idle3', 'busy5']);
  });

  it('keeps a lane being served until its cost is charged, and charges each item once', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a1');
    const taken = queue.shift()!;
    // Pushed while a1 is served: it queues behind a1 in a's lane, which keeps what a used.
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    taken.charge(50);
    taken.charge(50);
    expect(drain(queue, () => 10)).toEqual(['b1', 'a2']);
  });
});

describe('statements on the embedded database', () => {
  // The fair share is PGlite's: on PostgreSQL the pool serves statements side by side, and an account's requests
  // at once (HERALD_ACCOUNT_CONCURRENCY) keep it from holding every connection (test/http/accountConcurrency.test.ts).
  it("serve another account's statement before the backlog of one that queued many", async () => {
    const testDb = await openTestDb('pglite', { migrated: false });
    try {
      const { db } = testDb;
      const order: string[] = [];
      const run = (account: number, name: string, sql: string) =>
        asAccount(account, () => db.query(sql).then(() => order.push(name)));
      const heavy = Array.from({ length: 8 }, (_, i) => run(1, `heavy${i}`, 'SELECT pg_sleep(0.02)'));
      // Sent after all of them: it goes second, behind the one already being served.
      await new Promise((resolve) => setImmediate(resolve));
      const light = run(2, 'light', 'SELECT 1');
      await Promise.all([...heavy, light]);
      expect(order.indexOf('light')).toBeLessThanOrEqual(1);
    } finally {
      await testDb.drop();
    }
  });

  it("keep the workers' turn: one statement of theirs after at most 4 of requests", async () => {
    const testDb = await openTestDb('pglite', { migrated: false });
    try {
      const { db } = testDb;
      const background = db.background!();
      const order: string[] = [];
      const requests = [1, 2, 3].flatMap((account) =>
        Array.from({ length: 4 }, (_, i) =>
          asAccount(account, () => db.query('SELECT 1').then(() => order.push(`request${account}.${i}`))),
        ),
      );
      // Started inside an account's work, the workers' statement is still the workers' own.
      const worker = asAccount(1, () => background.query('SELECT 1').then(() => order.push('worker')));
      await Promise.all([...requests, worker]);
      expect(order.indexOf('worker')).toBeLessThanOrEqual(4);
      // Requests of the three accounts in turn.
      expect(order.filter((name) => name !== 'worker').slice(0, 3)).toEqual(['request1.0', 'request2.0', 'request3.0']);
    } finally {
      await testDb.drop();
    }
  });
});
