import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { waitFor } from '../helpers/waitFor.js';
import type { TestAccount } from '../helpers/testHerald.js';
import { startRoutingHerald, type RoutingHerald } from './routingHerald.js';
import { messageRows } from '../helpers/messageRows.js';

/*
 * Each strategy of DESIGN 21 through a running Herald: which connector the messages of a route go by. Connectors `a`
 * and `b` are up; `dead` never is. Each test has a prefix of its own, so that its route takes only its messages.
 */
describe.each(ENGINES)('route strategies end to end (%s)', (engine) => {
  let h: RoutingHerald;
  let account: TestAccount;

  beforeAll(async () => {
    h = await startRoutingHerald(engine);
    account = await h.createAccount();
  });
  afterAll(async () => h?.close());

  const route = async (body: Record<string, unknown>): Promise<number> => {
    const reply = await h.admin('POST', '/admin/v1/routes', { priority: 10, ...body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id;
  };
  /** Sends `n` messages to numbers of `prefix` (the simulators deliver them) and answers the connectors they took. */
  const connectorsOf = async (prefix: string, n = 1): Promise<string[]> => {
    const ids = await h.send(
      account.traffic,
      Array.from({ length: n }, (_, i) => ({
        channelType: 'SMS',
        senderName: 'Shop',
        destination: `${prefix}${String(i).padStart(11 - prefix.length - 1, '0')}6`,
        content: `to ${prefix} ${i}`,
      })),
    );
    return untilWritten(h.herald, async () => {
      const rows = await h.testDb.db.query<{ status: string; connector_id: string }>(
        `SELECT status, connector_id FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return rows.length === n && rows.every((r) => r.status === 'delivered') ? rows.map((r) => r.connector_id) : false;
    });
  };
  const rub = (amount: number) => ({ amount, currency: 'RUB' });

  it('ordered: the first connector that is up', async () => {
    await route({
      match: { channelType: 'SMS', prefixes: ['79031'] },
      connectors: [{ connectorId: 'dead' }, { connectorId: 'b' }, { connectorId: 'a' }],
    });
    expect(await connectorsOf('79031', 3)).toEqual(['b', 'b', 'b']);
  });

  it('cheapest: the lowest buy price among the connectors that are up', async () => {
    await route({
      match: { channelType: 'SMS', prefixes: ['79032'] },
      strategy: 'cheapest',
      connectors: [
        { connectorId: 'a', buyPrice: rub(0.5) },
        { connectorId: 'dead', buyPrice: rub(0.1) },
        { connectorId: 'b', buyPrice: rub(0.3) },
      ],
    });
    expect(await connectorsOf('79032', 3)).toEqual(['b', 'b', 'b']);
  });

  it('cheapest with a quality floor: a connector delivering below it is passed over', async () => {
    // The earlier tests' receipts through `b` counted first (a worker adds its counts with its next status report),
    // so that none lands on top of the counts written below (a CI run saw 16 of 106).
    await waitFor(async () => {
      const [row] = await h.testDb.db.query<{ counted: number; final: number }>(
        `SELECT (SELECT coalesce(sum(final), 0)::int FROM connector_outcomes WHERE connector_id = 'b') AS counted,
                (SELECT count(*)::int FROM ${messageRows()}
                 WHERE connector_id = 'b' AND status IN ('delivered', 'undelivered', 'unsent')) AS final`,
      );
      return row!.counted >= row!.final;
    });
    // The last minutes' receipts of `b`, as the workers count them: 10 delivered of 100.
    await h.testDb.db.query(
      `INSERT INTO connector_outcomes (connector_id, minute, delivered, final) VALUES ('b', $1, 10, 100)
       ON CONFLICT (connector_id, minute) DO UPDATE SET delivered = 10, final = 100`,
      [new Date(Math.floor(h.clock.now().getTime() / 60_000) * 60_000)],
    );
    const id = await route({
      match: { channelType: 'SMS', prefixes: ['79033'] },
      strategy: 'cheapest',
      quality: { minDeliveryRate: 0.9, windowSeconds: 600 },
      connectors: [
        { connectorId: 'a', buyPrice: rub(0.5) },
        { connectorId: 'b', buyPrice: rub(0.3) },
      ],
    });
    expect(await connectorsOf('79033', 2)).toEqual(['a', 'a']);
    const resolved = await h.admin('GET', '/admin/v1/routes/resolve?destination=79033000006&channelType=SMS');
    expect(resolved.body).toMatchObject({ routeId: id, connectorId: 'a' });
    expect(resolved.body.connectors).toEqual([
      expect.objectContaining({ connectorId: 'a', up: true, deliveryRate: null }),
      expect.objectContaining({ connectorId: 'b', up: true, deliveryRate: 0.1 }),
    ]);
  });

  it('weighted: traffic shared by weight among the connectors that are up', async () => {
    await route({
      match: { channelType: 'SMS', prefixes: ['79034'] },
      strategy: 'weighted',
      connectors: [
        { connectorId: 'a', weight: 3 },
        { connectorId: 'b', weight: 1 },
        { connectorId: 'dead', weight: 100 },
      ],
    });
    const by = await connectorsOf('79034', 120);
    // 3:1 of 120 is 90 by `a` (standard deviation 4.7): the bounds are 7 deviations out; `dead` takes none.
    const a = by.filter((c) => c === 'a').length;
    expect(a).toBeGreaterThanOrEqual(57);
    expect(a).toBeLessThanOrEqual(119);
    expect(by.filter((c) => c === 'b').length).toBe(120 - a);
  });
});
