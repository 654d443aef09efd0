import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { type StopCheck, stopListAdd, stopListMatch, stopListMatchOfAccounts } from '../../src/stoplists/index.js';
import { stopListFind } from '../../src/stoplists/stopListSql.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf } from '../helpers/plans.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { insertAccount } from '../factories/rows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const NUMBER = '79161234567';
const OTHER = '79167654321';
const check = (fields: Partial<StopCheck> = {}): StopCheck => ({
  channelType: 'SMS',
  senderName: 'Shop',
  destination: NUMBER,
  trafficType: 'PROMO',
  ...fields,
});
const count = async (tx: Queryable): Promise<number> =>
  (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM stop_list_entries'))[0]!.n;

/** The stop list's statements on their own, each test in a transaction rolled back at its end. */
describe.each(ENGINES)('stop list SQL (%s)', (engine) => {
  const own = ownRowsTests(engine);

  describe('stopListAdd', () => {
    own('adds an entry once per number and scope, whatever the order of its traffic types', async (tx) => {
      const { id } = await insertAccount(tx);
      const entry = { number: NUMBER, source: 'api', trafficTypes: ['SERVICE', 'PROMO'] } as const;
      expect(await stopListAdd(tx, id, [entry, { ...entry, trafficTypes: ['PROMO', 'SERVICE', 'PROMO'] }], T0)).toBe(1);
      expect(await stopListAdd(tx, id, [{ ...entry, source: 'keyword', comment: 'again' }], T0)).toBe(0);
      expect(await count(tx)).toBe(1);
      expect(await stopListFind(tx, id, entry)).toMatchObject({
        accountId: id,
        number: NUMBER,
        channelType: null,
        senderName: null,
        trafficTypes: ['SERVICE', 'PROMO'],
        source: 'api',
        comment: null,
        createdAt: T0,
      });
    });

    own('keeps apart entries of other scopes, other numbers, other accounts and the operator', async (tx) => {
      const [a, b] = [(await insertAccount(tx)).id, (await insertAccount(tx)).id];
      const base = { number: NUMBER, source: 'api' } as const;
      const scoped = [
        base,
        { ...base, number: OTHER },
        { ...base, channelType: 'SMS' },
        { ...base, senderName: 'Shop' },
        { ...base, trafficTypes: ['PROMO'] },
        { ...base, channelType: 'SMS', senderName: 'Shop', trafficTypes: ['PROMO'] },
      ] as const;
      expect(await stopListAdd(tx, a, scoped, T0)).toBe(6);
      expect(await stopListAdd(tx, b, [base], T0)).toBe(1);
      expect(await stopListAdd(tx, null, [{ ...base, source: 'operator' }], T0)).toBe(1);
      expect(await stopListAdd(tx, null, [{ ...base, source: 'operator' }], T0)).toBe(0);
      expect(await count(tx)).toBe(8);
    });
  });

  describe('stopListMatch', () => {
    own("matches the account's and the operator's lists, not another account's", async (tx) => {
      const [a, b, c] = [(await insertAccount(tx)).id, (await insertAccount(tx)).id, (await insertAccount(tx)).id];
      await stopListAdd(tx, a, [{ number: NUMBER, source: 'api' }], T0);
      await stopListAdd(tx, null, [{ number: OTHER, source: 'operator' }], T0);
      const items = [check(), check({ destination: OTHER }), check({ destination: '79160000000' })];
      expect(await stopListMatch(tx, a, items)).toEqual([true, true, false]);
      expect(await stopListMatch(tx, b, items)).toEqual([false, true, false]);
      await stopListAdd(tx, c, [{ number: '79160000000', source: 'api' }], T0);
      expect(await stopListMatch(tx, b, items)).toEqual([false, true, false]);
      expect(await stopListMatch(tx, c, items)).toEqual([false, true, true]);
    });

    own('applies each scope field: absent matches everything, present only its value', async (tx) => {
      const { id } = await insertAccount(tx);
      await stopListAdd(
        tx,
        id,
        [
          {
            number: NUMBER,
            channelType: 'WHATSAPP',
            senderName: 'Shop',
            trafficTypes: ['PROMO', 'SERVICE'],
            source: 'keyword',
          },
        ],
        T0,
      );
      const items = [
        check({ channelType: 'WHATSAPP' }),
        check({ channelType: 'WHATSAPP', trafficType: 'SERVICE' }),
        check({ channelType: 'SMS' }),
        check({ channelType: 'WHATSAPP', senderName: 'Bank' }),
        check({ channelType: 'WHATSAPP', trafficType: 'AUTHORIZE' }),
        check({ channelType: 'WHATSAPP', trafficType: 'TRANSACT' }),
      ];
      expect(await stopListMatch(tx, id, items)).toEqual([true, true, false, false, false, false]);
      // A second entry without scope lists the number for everything; the same number twice in a batch, both.
      await stopListAdd(tx, id, [{ number: NUMBER, source: 'api' }], T0);
      expect(await stopListMatch(tx, id, [...items, check()])).toEqual(items.map(() => true).concat(true));
    });

    own('matches messages of several accounts in one call, each against its own list', async (tx) => {
      const [a, b] = [(await insertAccount(tx)).id, (await insertAccount(tx)).id];
      await stopListAdd(tx, a, [{ number: NUMBER, source: 'api' }], T0);
      await stopListAdd(tx, b, [{ number: OTHER, channelType: 'VK', source: 'carrier' }], T0);
      await stopListAdd(tx, null, [{ number: '79160000001', trafficTypes: ['PROMO'], source: 'operator' }], T0);
      const listed = await stopListMatchOfAccounts(tx, [
        { ...check(), accountId: a },
        { ...check(), accountId: b },
        { ...check({ destination: OTHER, channelType: 'VK' }), accountId: b },
        { ...check({ destination: OTHER, channelType: 'VK' }), accountId: a },
        { ...check({ destination: OTHER }), accountId: b },
        { ...check({ destination: '79160000001' }), accountId: a },
        { ...check({ destination: '79160000001', trafficType: 'AUTHORIZE' }), accountId: b },
      ]);
      expect(listed).toEqual([true, false, true, false, false, true, false]);
    });

    own('answers an empty batch without a query, and in order for a batch of 1000', async (tx) => {
      const { id } = await insertAccount(tx);
      expect(await stopListMatch(tx, id, [])).toEqual([]);
      const numbers = Array.from({ length: 1000 }, (_, i) => `7916${String(i).padStart(7, '0')}`);
      await stopListAdd(
        tx,
        id,
        numbers.filter((_, i) => i % 3 === 0).map((number) => ({ number, source: 'import' as const })),
        T0,
      );
      const listed = await stopListMatch(
        tx,
        id,
        numbers.map((destination) => check({ destination })),
      );
      expect(listed).toEqual(numbers.map((_, i) => i % 3 === 0));
    });

    if (engine === 'postgres')
      own('reads the numbers of both lists by one scan of the scope index', async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        const { id } = await insertAccount(tx);
        const plan = JSON.stringify(await planOf(tx, (explaining) => stopListMatch(explaining, id, [check()])));
        expect(plan).toContain('"Index Name":"stop_list_entries_scope"');
        expect(plan.match(/"Relation Name":"stop_list_entries"/g)).toHaveLength(1);
      });
  });
});
