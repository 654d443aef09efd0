import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mnpBrands } from '../../src/mnp/index.js';
import { ENGINES } from '../helpers/engines.js';
import type { TestAccount, TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { postImport, startMnpHerald } from './mnpHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

const ROWS = 1_000_000;
/** The i-th number of the generated base: 79000000000 and on. */
const numberAt = (i: number): string => `7900${String(i).padStart(7, '0')}`;
/** Numbers of both bases, spread over the big one (its first and last rows among them). */
const SAMPLE = Array.from({ length: 100 }, (_, k) => numberAt(Math.min(ROWS - 1, k * 10_101)));

/** A base of `ROWS` rows, made as it is sent (never whole in memory): every number ported to MegaFon. */
function bigBase(): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('Number,OwnerId,MNC,Route,RegionCode,PortDate,RowCount\r\n'));
    },
    pull(controller) {
      if (next >= ROWS) return controller.close();
      const lines: string[] = [];
      for (const end = Math.min(ROWS, next + 10_000); next < end; next++)
        lines.push(`${numberAt(next).slice(1)},mMEGAFON,02,D7702,77,2024-05-01T10:00:00+03:00,\r\n`);
      controller.enqueue(encoder.encode(lines.join('')));
    },
  });
}

/**
 * An import of a million rows while messages are sent and the base is looked up: every look-up sees the whole old
 * base or the whole new one, and every send is taken.
 */
describe.each(ENGINES)('number portability: a million rows imported under traffic (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    ({ t, account } = await startMnpHerald(engine));
  });
  afterAll(async () => t?.close());

  const post = (body: string | ReadableStream<Uint8Array>) => postImport(t, body);
  const state = async (id: number) => (await t.admin('GET', `/admin/v1/mnp/imports/${id}`)).body;

  it('swaps the whole base in while sends and look-ups go on', { timeout: 600_000 }, async () => {
    const small = await post(`Number,OwnerId\n${SAMPLE.join(',mMTS\n')},mMTS\n`);
    const smallId = ((await small.json()) as { importId: number }).importId;
    await waitFor(async () => (await state(smallId)).state === 'done');

    const answer = post(bigBase());
    let importDone = false;
    const seen = { old: 0, new: 0, sends: 0 };
    const traffic = (async () => {
      let switched = false;
      while (!importDone) {
        const brands = await mnpBrands(t.testDb.db, SAMPLE);
        expect(brands.size).toBe(SAMPLE.length);
        const values = new Set(brands.values());
        expect(values.size).toBe(1);
        const brand = [...values][0];
        if (brand === 'МЕГАФОН') switched = true;
        else expect(switched).toBe(false);
        seen[brand === 'МЕГАФОН' ? 'new' : 'old']++;
        const ids = await t.send(
          account.traffic,
          SAMPLE.slice(0, 10).map((destination) => ({
            channelType: 'SMS',
            senderName: SENDER,
            destination,
            content: 'Hi',
          })),
        );
        seen.sends += ids.length;
      }
    })();
    try {
      const reply = await answer;
      expect(reply.status).toBe(202);
      const { importId } = (await reply.json()) as { importId: number };
      const done = await waitFor(
        async () => {
          const s = await state(importId);
          return ['done', 'failed'].includes(s.state) ? s : undefined;
        },
        { timeoutMs: 540_000, intervalMs: 200 },
      );
      expect(done).toMatchObject({ state: 'done', rows: ROWS, loaded: ROWS, errorCount: 0, duplicates: 0 });
    } finally {
      importDone = true;
      await traffic;
    }
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.sends).toBeGreaterThan(0);
    const brands = await mnpBrands(t.testDb.db, [numberAt(0), numberAt(ROWS - 1), numberAt(ROWS)]);
    expect(brands).toEqual(
      new Map([
        [numberAt(0), 'МЕГАФОН'],
        [numberAt(ROWS - 1), 'МЕГАФОН'],
      ]),
    );
    const messages = await t.testDb.db.query<{ brand: string; n: number }>(
      'SELECT brand, count(*)::int AS n FROM messages GROUP BY brand ORDER BY brand',
    );
    expect(messages.map((m) => m.brand).every((b) => b === 'МТС' || b === 'МЕГАФОН')).toBe(true);
  });
});
