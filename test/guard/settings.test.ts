import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, startTestHerald, type TestHerald } from '../helpers/testHerald.js';

const DEFAULTS = {
  geoPermissions: null,
  flood: { identical: 6, any: 20 },
  dailySpendLimit: null,
  consentRequired: [],
  pumping: { mode: 'hold', rangeFloor: 100, countryFloor: 300, factor: 10 },
};

describe.each(ENGINES)('guard settings (DESIGN 20) (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => t?.close());

  it('are the defaults until someone sets them, for the client and the operator', async () => {
    const account = await t.createAccount({ guardDefaults: true });
    const own = await t.call('GET', '/api/v1/settings', { token: account.system });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ operator: {}, client: {}, effective: DEFAULTS });
    const seen = await t.admin('GET', `/admin/v1/accounts/${account.id}`);
    expect(seen.body.settings).toEqual({ operator: {}, client: {}, effective: DEFAULTS });
    // TOKEN_2 only.
    expect((await t.call('GET', '/api/v1/settings', { token: account.traffic })).body.error.code).toBe(4030);
  });

  it("lets the client narrow the operator's settings and refuses a loosening with 4030", async () => {
    const account = await t.createAccount({ guardDefaults: true });
    const operator = await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, {
      geoPermissions: { allow: ['RU', 'KZ', 'BY'], deny: ['UA'], mode: 'monitor' },
      flood: { identical: 3, any: 10 },
      dailySpendLimit: { RUB: 1000 },
      consentRequired: ['PROMO'],
    });
    expect(operator.status).toBe(200);
    expect(operator.body.settings.effective).toMatchObject({ flood: { identical: 3, any: 10 } });

    const patch = (body: unknown) => t.call('PATCH', '/api/v1/settings', { token: account.system, body });
    const loosenings: [unknown, string][] = [
      [{ geoPermissions: { allow: ['RU', 'DE'], mode: 'enforce' } }, 'geoPermissions.allow'],
      [{ geoPermissions: { allow: ['RU', 'UA'], mode: 'enforce' } }, 'geoPermissions.allow'],
      [{ flood: { identical: 4, any: 10 } }, 'flood.identical'],
      [{ consentRequired: ['SERVICE'] }, 'consentRequired'],
      [{ flood: { identical: 3, any: 0 } }, 'flood.any'],
      [{ dailySpendLimit: { RUB: 1001 } }, 'dailySpendLimit.RUB'],
      [{ pumping: { mode: 'monitor', rangeFloor: 100, countryFloor: 300, factor: 10 } }, 'pumping.mode'],
      [{ pumping: { mode: 'hold', rangeFloor: 101, countryFloor: 300, factor: 10 } }, 'pumping.rangeFloor'],
      [{ pumping: { mode: 'hold', rangeFloor: 100, countryFloor: 300, factor: 11 } }, 'pumping.factor'],
    ];
    for (const [body, setting] of loosenings) {
      const refused = await patch(body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body).toEqual({ error: { code: 4030, msg: `Only the operator may loosen ${setting}` } });
    }
    // Nothing of the refused changes was stored.
    expect((await t.call('GET', '/api/v1/settings', { token: account.system })).body.client).toEqual({});

    const narrowed = await patch({
      geoPermissions: { allow: ['RU', 'KZ'], mode: 'enforce' },
      flood: { identical: 2, any: 10 },
      dailySpendLimit: { RUB: 500, USD: 10 },
      consentRequired: ['SERVICE', 'PROMO'],
      pumping: { mode: 'hold', rangeFloor: 50, countryFloor: 300, factor: 5 },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.effective).toEqual({
      geoPermissions: { allow: ['RU', 'KZ'], deny: ['UA'], mode: 'enforce' },
      flood: { identical: 2, any: 10 },
      dailySpendLimit: { RUB: 500, USD: 10 },
      consentRequired: ['SERVICE', 'PROMO'],
      pumping: { mode: 'hold', rangeFloor: 50, countryFloor: 300, factor: 5 },
    });
    // null removes the client's own narrowing: the operator's applies again.
    const cleared = await patch({ flood: null });
    expect(cleared.body.effective.flood).toEqual({ identical: 3, any: 10 });
    expect(cleared.body.client.flood).toBeUndefined();
  });

  it('lets only the operator turn the flood filter off', async () => {
    const account = await t.createAccount({ guardDefaults: true });
    const off = await t.call('PATCH', '/api/v1/settings', {
      token: account.system,
      body: { flood: { identical: 0, any: 0 } },
    });
    expect(off.body.error.code).toBe(4030);
    const byOperator = await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { flood: null });
    expect(byOperator.body.settings.effective.flood).toBeNull();
    // With the operator's filter off, the client may set one of its own.
    const own = await t.call('PATCH', '/api/v1/settings', {
      token: account.system,
      body: { flood: { identical: 1, any: 5 } },
    });
    expect(own.body.effective.flood).toEqual({ identical: 1, any: 5 });
  });

  it('refuses malformed settings with 4220', async () => {
    const account = await t.createAccount({ guardDefaults: true });
    for (const body of [
      { geoPermissions: { allow: ['russia'], mode: 'enforce' } },
      { geoPermissions: { mode: 'audit' } },
      { flood: { identical: -1, any: 3 } },
      { dailySpendLimit: { rub: 5 } },
      { consentRequired: ['SPAM'] },
      { pumping: { mode: 'hold' } },
      { unknown: 1 },
    ]) {
      const client = await t.call('PATCH', '/api/v1/settings', { token: account.system, body });
      expect(client.status, JSON.stringify(body)).toBe(422);
      expect(client.body.error.code).toBe(4220);
      const operator = await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, body);
      expect(operator.status, JSON.stringify(body)).toBe(422);
    }
  });

  it('audits every change: who, when, before and after, readable by both', async () => {
    const account = await t.createAccount({ guardDefaults: true });
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { dailySpendLimit: { RUB: 100 } });
    t.clock.advance(60_000);
    await t.call('PATCH', '/api/v1/settings', { token: account.system, body: { dailySpendLimit: { RUB: 50 } } });
    // A refused loosening and a change to nothing new leave no entry.
    await t.call('PATCH', '/api/v1/settings', { token: account.system, body: { dailySpendLimit: { RUB: 500 } } });
    await t.call('PATCH', '/api/v1/settings', { token: account.system, body: { dailySpendLimit: { RUB: 50 } } });
    const client = await t.call('GET', '/api/v1/settings/audit', { token: account.system });
    expect(client.status).toBe(200);
    expect(client.body.total).toBe(2);
    expect(client.body.items[0]).toMatchObject({
      side: 'client',
      actor: `token:${keyIdOf(account.system)}`,
      before: {},
      after: { dailySpendLimit: { RUB: 50 } },
    });
    expect(client.body.items[1]).toMatchObject({
      side: 'operator',
      actor: 'operator',
      before: {},
      after: { dailySpendLimit: { RUB: 100 } },
    });
    expect(Date.parse(client.body.items[0].changedAt) - Date.parse(client.body.items[1].changedAt)).toBe(60_000);
    const operator = await t.admin('GET', `/admin/v1/accounts/${account.id}/settings-audit`);
    expect(operator.body.items).toEqual(client.body.items);
    expect((await t.admin('GET', '/admin/v1/accounts/999999/settings-audit')).status).toBe(404);
    // Another account sees only its own.
    const other = await t.createAccount({ guardDefaults: true });
    expect((await t.call('GET', '/api/v1/settings/audit', { token: other.system })).body.total).toBe(0);
  });
});
