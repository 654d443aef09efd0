import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WakeTopic } from '../../src/db/wake.js';
import type { RouteQuery } from '../../src/routing/index.js';
import { applyOrphanReceipts } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { waitFor } from '../helpers/waitFor.js';
import { startRoutingHerald, type RoutingHerald } from './routingHerald.js';
import { messageRows } from '../helpers/messageRows.js';

/*
 * Routes changed through the API while Herald runs: the worker's route book reloads on the 'routes' wake-up at the
 * change's commit (a look at the book's version every 2 s backs it up), and the next message goes by the new route.
 */

/** Route changes reach the worker within this much real time. */
const RELOAD_BOUND_MS = 5000;

describe.each(ENGINES)('routes changed while Herald runs (%s)', (engine) => {
  let h: RoutingHerald;

  beforeAll(async () => {
    h = await startRoutingHerald(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The connector, route and buy price of each message once all are sent and their receipts recorded. */
  const sent = (ids: string[]) =>
    untilWritten(h.herald, async () => {
      // A two-part message's receipts may come ahead of its submission's record (see applyOrphanReceipts).
      await applyOrphanReceipts(h.testDb.db);
      const rows = await h.testDb.db.query<{
        id: string;
        status: string;
        connector_id: string | null;
        route_id: number | null;
        buy_price: string | null;
        buy_currency: string | null;
        total_parts: number;
      }>(
        `SELECT id, status, connector_id, route_id::int AS route_id, buy_price::text AS buy_price, buy_currency,
           total_parts FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      if (rows.length !== ids.length || !rows.every((r) => r.status === 'delivered')) return undefined;
      return ids.map((id) => rows.find((r) => r.id === id)!);
    });

  /** Waits until the worker's route book (not refreshed here: the watcher must do it) sends `query` by `routeId`. */
  const untilRouted = (query: Partial<RouteQuery> & { accountId: number; destination: string }, routeId: number) =>
    waitFor(
      () =>
        h.herald.ctx.routeBook.routes.match({
          channel: 'SMS',
          trafficType: 'SERVICE',
          senderName: 'Shop',
          country: 'RU',
          operator: null,
          ...query,
        })?.id === routeId,
      { timeoutMs: RELOAD_BOUND_MS, intervalMs: 10 },
    );

  const message = (destination: string, content: string) => ({
    channelType: 'SMS',
    senderName: 'Shop',
    destination,
    content,
  });

  it("notifies the 'routes' wake-up at the commit of a change", async () => {
    const topics: WakeTopic[] = [];
    const unlisten = await h.testDb.db.listenWakeups({ onWake: (t) => topics.push(t), onListening: () => undefined });
    try {
      const created = await h.admin('POST', '/admin/v1/routes', {
        match: { channelType: 'SMS', prefixes: ['7911'] },
        connectors: [{ connectorId: 'b' }],
      });
      expect(created.status).toBe(201);
      await waitFor(() => topics.includes('routes'), { timeoutMs: RELOAD_BOUND_MS });
      topics.length = 0;
      expect((await h.admin('DELETE', `/admin/v1/routes/${created.body.id}`)).status).toBe(204);
      await waitFor(() => topics.includes('routes'), { timeoutMs: RELOAD_BOUND_MS });
    } finally {
      await unlisten();
    }
  });

  it('sends by the new route a message sent after a route is added or changed, without a restart', async () => {
    const account = await h.createAccount();
    const destination = '79261110000';
    const [before] = await sent(await h.send(account.traffic, [message(destination, 'before the change')]));
    expect(before!.connector_id).toBe('a');
    expect(h.carriers.a.submissions.map((s) => s.text)).toContain('before the change');

    const added = await h.admin('POST', '/admin/v1/routes', {
      priority: 10,
      match: { channelType: 'SMS', prefixes: ['79261'] },
      connectors: [{ connectorId: 'b' }],
    });
    expect(added.status).toBe(201);
    await untilRouted({ accountId: account.id, destination }, added.body.id);
    const [after] = await sent(await h.send(account.traffic, [message(destination, 'after the change')]));
    expect([after!.connector_id, after!.route_id]).toEqual(['b', added.body.id]);
    expect(h.carriers.b.submissions.map((s) => s.text)).toContain('after the change');
    expect(h.carriers.a.submissions.map((s) => s.text)).not.toContain('after the change');

    // The route moved to other numbers: this one goes by the general route again.
    const patched = await h.admin('PATCH', `/admin/v1/routes/${added.body.id}`, { match: { prefixes: ['79269'] } });
    expect(patched.status).toBe(200);
    await untilRouted({ accountId: account.id, destination }, before!.route_id!);
    const [again] = await sent(await h.send(account.traffic, [message(destination, 'after the patch')]));
    expect([again!.connector_id, again!.route_id]).toEqual(['a', before!.route_id]);
  });

  it("sends an account's messages by its route, another account's to the same number by the general one", async () => {
    const mine = await h.createAccount();
    const other = await h.createAccount();
    const destination = '79263330000';
    const own = await h.admin('POST', '/admin/v1/routes', {
      match: { channelType: 'SMS', accountIds: [mine.id] },
      connectors: [{ connectorId: 'b' }],
    });
    expect(own.status).toBe(201);
    await untilRouted({ accountId: mine.id, destination }, own.body.id);
    const [fromMine] = await sent(await h.send(mine.traffic, [message(destination, 'from mine')]));
    const [fromOther] = await sent(await h.send(other.traffic, [message(destination, 'from the other')]));
    expect([fromMine!.connector_id, fromMine!.route_id]).toEqual(['b', own.body.id]);
    expect(fromOther!.connector_id).toBe('a');
    expect(fromOther!.route_id).not.toBe(own.body.id);
    expect(h.carriers.b.submissions.map((s) => s.text)).not.toContain('from the other');
  });

  it("records the route and its buy price for all the message's parts on the message", async () => {
    const account = await h.createAccount();
    const route = await h.admin('POST', '/admin/v1/routes', {
      match: { channelType: 'SMS', accountIds: [account.id] },
      connectors: [{ connectorId: 'b', buyPrice: { amount: 0.35, currency: 'RUB' } }],
    });
    expect(route.status).toBe(201);
    await untilRouted({ accountId: account.id, destination: '79264440000' }, route.body.id);
    // 200 GSM characters: two parts of 153.
    const [long, short] = await sent(
      await h.send(account.traffic, [message('79264440000', 'x'.repeat(200)), message('79264440001', 'one part')]),
    );
    expect(long).toMatchObject({ connector_id: 'b', route_id: route.body.id, total_parts: 2, buy_currency: 'RUB' });
    expect(Number(long!.buy_price)).toBe(0.7);
    expect(short).toMatchObject({ connector_id: 'b', route_id: route.body.id, total_parts: 1, buy_currency: 'RUB' });
    expect(Number(short!.buy_price)).toBe(0.35);

    // A route without a price: the route is recorded, no buy price.
    const other = await h.createAccount();
    const [general] = await sent(await h.send(other.traffic, [message('79264440002', 'no price')]));
    expect(general).toMatchObject({ connector_id: 'a', buy_price: null, buy_currency: null });
    expect(general!.route_id).not.toBeNull();
  });
});
