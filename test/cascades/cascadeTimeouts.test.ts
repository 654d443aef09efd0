import { describe, expect, it } from 'vitest';
import { cascadeInsertBatch, cascadesClaimTimedOut, cascadesStop } from '../../src/cascades/cascadeSql.js';
import { decide } from '../../src/cascades/cascades.js';
import type { Db, Queryable } from '../../src/db/db.js';
import { ENGINES } from '../helpers/engines.js';
import { describeClaimSkipsLocked, ownRowsTests } from '../helpers/transactions.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** A running cascade of two steps whose first step times out at `timeoutAt` (null: it has no timeout). */
async function insertCascade(db: Queryable, n: number, timeoutAt: Date | null, accountId = 1): Promise<string> {
  await cascadeInsertBatch(db, {
    accountId,
    now: T0,
    trafficCenterId: null,
    sendingMethod: 'API',
    currency: 'RUB',
    cascades: [
      {
        id: id(n),
        // The claim reads no step: a placeholder of the right length will do.
        steps: [{ timeout: 30 }, {}] as never,
        stepTimeoutAt: timeoutAt,
        stepsUntil: at(300),
      },
    ],
  });
  return id(n);
}

const claimed = async (db: Queryable, now: Date, limit = 100) =>
  (await cascadesClaimTimedOut(db, now, limit)).map((c) => c.id);

/** The claim of the step-timeout job on its own, each test in a transaction rolled back at its end. */
describe.each(ENGINES)('cascades: the claim of timed-out steps (%s)', (engine) => {
  const ownRows = ownRowsTests(engine);

  ownRows('takes running cascades whose step has timed out, oldest timeout first, up to the limit', async (tx) => {
    await insertCascade(tx, 1, at(30));
    await insertCascade(tx, 2, at(10));
    await insertCascade(tx, 3, at(31));
    await insertCascade(tx, 4, null);
    expect(await claimed(tx, at(29))).toEqual([id(2)]);
    expect(await claimed(tx, at(30))).toEqual([id(2), id(1)]);
    expect(await claimed(tx, at(30), 1)).toEqual([id(2)]);
    expect(await claimed(tx, at(3600))).toEqual([id(2), id(1), id(3)]);
  });

  ownRows('leaves stopped cascades alone: a stop clears the timeout', async (tx) => {
    await insertCascade(tx, 5, at(10));
    expect(await cascadesStop(tx, 1, [id(5)], at(5))).toEqual(new Set([id(5)]));
    expect(await claimed(tx, at(60))).toEqual([]);
    const [row] = await tx.query<{ step_timeout_at: Date | null }>(
      'SELECT step_timeout_at FROM cascades WHERE id = $1',
      [id(5)],
    );
    expect(row!.step_timeout_at).toBeNull();
  });
});

describeClaimSkipsLocked('cascades: the timeout claim skips cascades another transaction holds (PostgreSQL)', {
  table: 'cascades',
  insertDue: (() => {
    let n = 100;
    return async (db: Db) => insertCascade(db, n++, at(-1));
  })(),
  // As the job does: claimed and moved on in one transaction (here: its timeout cleared).
  claim: (db) =>
    db.transaction(async (tx) => {
      const ids = await claimed(tx, at(0));
      await tx.query('UPDATE cascades SET step_timeout_at = NULL WHERE id = ANY($1::uuid[])', [ids]);
      return ids;
    }),
});

describe('what a step outcome means for a cascade with step timeouts', () => {
  it('waits for the timeout after a delivery, moves on at once when not delivered, ends at the last step', () => {
    expect(decide('not_delivered', { status: 'delivered', readStatus: null }, true)).toBe('wait');
    expect(decide('not_delivered', { status: 'delivered', readStatus: null }, false)).toBe('end');
    expect(decide('not_delivered', { status: 'undelivered', readStatus: null }, true)).toBe('next');
    expect(decide('not_delivered', { status: 'unsent', readStatus: null }, true)).toBe('next');
    expect(decide(null, { status: 'delivered', readStatus: null }, true)).toBe('end');
  });
});
