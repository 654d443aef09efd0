import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import {
  cascadeInsertBatch,
  cascadesRunningOfDispatches,
  cascadesStopOfDispatch,
} from '../../src/cascades/cascadeSql.js';
import { ENGINES } from '../helpers/engines.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { insertAccount } from '../factories/rows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const DISPATCH = '01900000-0000-7000-8000-0000000000d1';
const OTHER = '01900000-0000-7000-8000-0000000000d2';
const id = (n: number): string => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** Cascades of an account: `n` of each dispatch given (null: not a dispatch's). */
async function cascades(tx: Queryable, accountId: number, of: (string | null)[]): Promise<void> {
  let n = 0;
  for (const dispatchId of of)
    await cascadeInsertBatch(tx, {
      accountId,
      now: T0,
      trafficCenterId: null,
      sendingMethod: 'API',
      currency: 'RUB',
      cascades: [{ id: id(++n + accountId * 100), steps: [] }],
      ...(dispatchId ? { dispatchId } : {}),
    });
}

/** The statements on the cascades of dispatches, each test in a transaction rolled back. */
describe.each(ENGINES)('cascades of dispatches SQL (%s)', (engine) => {
  const own = ownRowsTests(engine);

  own("counts a dispatch's running cascades, and a stop ends them and no other", async (tx) => {
    const { id: accountId } = await insertAccount(tx);
    await cascades(tx, accountId, [DISPATCH, DISPATCH, DISPATCH, OTHER, null]);
    await tx.query(`UPDATE cascades SET state = 'done' WHERE id = $1`, [id(1 + accountId * 100)]);
    expect(await cascadesRunningOfDispatches(tx, accountId, [DISPATCH, OTHER])).toEqual(
      new Map([
        [DISPATCH, 2],
        [OTHER, 1],
      ]),
    );
    expect(await cascadesStopOfDispatch(tx, accountId, DISPATCH, T0)).toBe(2);
    expect(await cascadesRunningOfDispatches(tx, accountId, [DISPATCH, OTHER])).toEqual(new Map([[OTHER, 1]]));
    const states = await tx.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM cascades WHERE account_id = $1 GROUP BY state ORDER BY state',
      [accountId],
    );
    expect(states).toEqual([
      { state: 'done', n: 1 },
      { state: 'running', n: 2 },
      { state: 'stopped', n: 2 },
    ]);
    // Another account's dispatch of the same id is not this one's.
    expect(await cascadesRunningOfDispatches(tx, accountId + 1, [OTHER])).toEqual(new Map());
  });
});
