import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trafficCenterDelete, trafficCenterLock } from '../../src/accounts/trafficCenterSql.js';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

/** A traffic center with live API keys bound to it cannot be deleted (docs/security.md). */
describe.each(ENGINES)('traffic centers and the keys bound to them (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const api = (method: string, path: string, body?: unknown) => t.call(method, path, { token: account.system, body });
  const newCenter = async (name: string) => (await api('POST', '/api/v1/traffic-centers', { name })).body.id as number;
  /** The key ids a 4095 message names (oldest first; keys made at one instant of the test clock in id order). */
  const namedKeys = (msg: string) => JSON.parse(/: (\[.*\])/.exec(msg)![1]!) as string[];
  const bindKey = async (center: number) =>
    (await api('POST', '/api/v1/api-keys', { type: 'traffic', trafficCenterId: center })).body as {
      id: string;
      token: string;
    };

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it("refuses with 409 4095 naming the live keys, the client's and the operator's; deletes once revoked", async () => {
    const center = await newCenter('Shop');
    const client = await bindKey(center);
    const operator = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, {
      type: 'traffic',
      trafficCenterId: center,
    });
    const operatorId = keyIdOf(operator.body.token);

    const refused = await api('DELETE', `/api/v1/traffic-centers/${center}`);
    const both = [client.id, operatorId].sort();
    expect([refused.status, refused.body]).toEqual([
      409,
      {
        error: {
          code: 4095,
          msg: `Traffic center ${center} has live API keys bound to it: ${JSON.stringify(both)}; revoke them first`,
        },
      },
    ]);
    expect((await api('GET', `/api/v1/traffic-centers/${center}`)).status).toBe(200);
    // The key still works and still tags its messages with the center.
    expect((await t.call('GET', '/api/v1/balance', { token: client.token })).status).toBe(200);

    expect((await api('DELETE', `/api/v1/api-keys/${client.id}`)).status).toBe(204);
    expect((await api('DELETE', `/api/v1/traffic-centers/${center}`)).body.error.msg).toBe(
      `Traffic center ${center} has live API keys bound to it: ["${operatorId}"]; revoke them first`,
    );
    expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/tokens/${operatorId}`)).status).toBe(204);
    expect((await api('DELETE', `/api/v1/traffic-centers/${center}`)).status).toBe(204);
  });

  it('names the first ten keys and counts the others', async () => {
    const center = await newCenter('Many');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await bindKey(center)).id);
    const refused = await api('DELETE', `/api/v1/traffic-centers/${center}`);
    expect(refused.body.error.msg).toMatch(
      new RegExp(`^Traffic center ${center} has live API keys bound to it: \\[.*\\] and 2 more; revoke them first$`),
    );
    const named = namedKeys(refused.body.error.msg);
    expect(named).toEqual([...ids].sort().slice(0, 10));
  });

  it('keys of other centers, and system keys, do not hold a center', async () => {
    const kept = await newCenter('Kept');
    const gone = await newCenter('Gone');
    await bindKey(kept);
    await api('POST', '/api/v1/api-keys', { type: 'system' });
    expect((await api('DELETE', `/api/v1/traffic-centers/${gone}`)).status).toBe(204);
    // And a key cannot be bound to the deleted center afterwards.
    const late = await api('POST', '/api/v1/api-keys', { type: 'traffic', trafficCenterId: gone });
    expect([late.status, late.body.error.msg]).toEqual([422, `Invalid trafficCenterId: ${gone} (no such center)`]);
  });

  it.runIf(engine === 'postgres')(
    'a key bound while the center is being deleted waits, then finds it gone',
    async () => {
      const center = await newCenter('Racing');
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked = false;
      // What the delete route does, paused between its lock and its commit.
      const deleting = t.testDb.db.transaction(async (tx) => {
        expect(await trafficCenterLock(tx, account.id, center)).toBeDefined();
        locked = true;
        await held;
        await trafficCenterDelete(tx, account.id, center);
      });
      await waitFor(() => locked);
      const binding = api('POST', '/api/v1/api-keys', { type: 'traffic', trafficCenterId: center });
      await waitFor(async () => {
        const [row] = await t.testDb.db.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' " +
            "AND query LIKE 'SELECT % FROM traffic_centers % FOR SHARE'",
        );
        return row!.waiting > 0;
      });
      release();
      await deleting;
      const reply = await binding;
      expect([reply.status, reply.body.error.msg]).toEqual([
        422,
        `Invalid trafficCenterId: ${center} (no such center)`,
      ]);
      const [dangling] = await t.testDb.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM api_tokens WHERE traffic_center_id = $1',
        [center],
      );
      expect(dangling!.n).toBe(0);
    },
  );
});
