import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { messageRows } from '../helpers/messageRows.js';

// A route row written by hand (an operator's SQL, a bulk load as bench/routing.ts does) names only the fields it
// needs in its JSON: the absent ones match anything, as null does, and nothing fails on them.
describe.each(ENGINES)('routes written by hand (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 5, configure: (file) => ({ ...file, routes: [] }) },
    });
    await t.testDb.db.query(
      `INSERT INTO routes (priority, channel_type, match, connectors, strategy, created_at, updated_at)
       VALUES (5, 'SMS', '{"channelType": "SMS", "prefixes": ["7916"]}', '[{"connectorId": "sim-smsc"}]', 'ordered',
         now(), now())`,
    );
    await t.testDb.db.query('UPDATE route_book SET version = version + 1');
  });
  afterAll(async () => t?.close());

  it('is listed, resolved and sent by like one made through the API', async () => {
    const resolved = await t.admin('GET', '/admin/v1/routes/resolve?destination=79161234566&channelType=SMS');
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ connectorId: 'sim-smsc', buyPrice: null });
    const listed = await t.admin('GET', '/admin/v1/routes');
    expect(listed.body.items).toEqual([
      expect.objectContaining({
        priority: 5,
        match: { channelType: 'SMS', prefixes: ['7916'] },
        connectors: [{ connectorId: 'sim-smsc' }],
      }),
    ]);
    const none = await t.admin('GET', '/admin/v1/routes/resolve?destination=79251234566&channelType=SMS');
    expect(none.status).toBe(404);
    const account = await t.createAccount({ senderNames: [['SMS', 'Shop']] });
    const [id] = await t.send(account.traffic, [
      { channelType: 'SMS', senderName: 'Shop', destination: '79161234566', content: 'by hand' },
    ]);
    const row = async () =>
      (
        await t.testDb.db.query<{ status: string; route_id: number; connector_id: string }>(
          `SELECT status, route_id::int AS route_id, connector_id FROM ${messageRows()} WHERE id = $1`,
          [id],
        )
      )[0]!;
    await untilWritten(t.herald, async () => (await row()).status === 'delivered');
    expect(await row()).toMatchObject({ route_id: listed.body.items[0].id, connector_id: 'sim-smsc' });
  });
});
