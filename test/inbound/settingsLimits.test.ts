import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const CENTERS = 4;
const RULES = 3;
const NAMES = 5;

describe('settings of the per-account ceilings', () => {
  it('default to 100 and refuse what is not a positive integer', () => {
    const config = loadConfig({});
    expect([config.inboundRulesPerAccount, config.inboundRuleSenderNames, config.trafficCentersPerAccount]).toEqual([
      100, 100, 100,
    ]);
    for (const name of [
      'HERALD_INBOUND_RULES_PER_ACCOUNT',
      'HERALD_INBOUND_RULE_SENDER_NAMES',
      'HERALD_TRAFFIC_CENTERS_PER_ACCOUNT',
    ]) {
      expect(() => loadConfig({ [name]: '0' })).toThrow(`${name}: must be an integer from 1 to`);
      expect(() => loadConfig({ [name]: 'many' })).toThrow(name);
    }
    expect(loadConfig({ HERALD_INBOUND_RULE_SENDER_NAMES: '1000' }).inboundRuleSenderNames).toBe(1000);
  });
});

describe.each(ENGINES)('per-account ceilings on traffic centers and inbound rules (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let other: TestAccount;
  const api = (who: TestAccount, method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: who.system, body });
  const defaultCenter = async (who: TestAccount) =>
    ((await api(who, 'GET', '/api/v1/traffic-centers')).body.items as { id: number; isDefault: boolean }[]).find(
      (c) => c.isDefault,
    )!.id;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: {
        HERALD_TRAFFIC_CENTERS_PER_ACCOUNT: String(CENTERS),
        HERALD_INBOUND_RULES_PER_ACCOUNT: String(RULES),
        HERALD_INBOUND_RULE_SENDER_NAMES: String(NAMES),
      },
    });
    account = await t.createAccount();
    other = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('takes centers up to the ceiling, the default included, then 409 4094; deleting one makes room', async () => {
    const made: number[] = [];
    for (let i = 1; i < CENTERS; i++) {
      const reply = await api(account, 'POST', '/api/v1/traffic-centers', { name: `Center ${i}` });
      expect(reply.status).toBe(201);
      made.push(reply.body.id);
    }
    const refused = await api(account, 'POST', '/api/v1/traffic-centers', { name: 'One too many' });
    expect([refused.status, refused.body]).toEqual([
      409,
      { error: { code: 4094, msg: `Too many traffic centers: at most ${CENTERS} per account` } },
    ]);
    expect((await api(account, 'GET', '/api/v1/traffic-centers')).body.items).toHaveLength(CENTERS);
    // Another account is not counted against.
    expect((await api(other, 'POST', '/api/v1/traffic-centers', { name: 'Theirs' })).status).toBe(201);
    expect((await api(account, 'DELETE', `/api/v1/traffic-centers/${made.pop()}`)).status).toBe(204);
    expect((await api(account, 'POST', '/api/v1/traffic-centers', { name: 'Again' })).status).toBe(201);
  });

  it('takes rules up to the ceiling, then 409 4094, counted exactly when requests race', async () => {
    const center = await defaultCenter(account);
    const replies = await Promise.all(
      Array.from({ length: RULES + 5 }, () =>
        api(account, 'POST', '/api/v1/inbound-rules', {
          trafficCenterId: center,
          callbackUrl: 'https://hooks.example/in',
        }),
      ),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(RULES);
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expect([reply.status, reply.body]).toEqual([
        409,
        { error: { code: 4094, msg: `Too many inbound rules: at most ${RULES} per account` } },
      ]);
    }
    expect((await api(account, 'GET', '/api/v1/inbound-rules')).body.items).toHaveLength(RULES);
    // Replacing a rule is not adding one.
    const first = replies.find((r) => r.status === 201)!.body.id;
    expect(
      (await api(account, 'PUT', `/api/v1/inbound-rules/${first}`, { trafficCenterId: center, senderNames: ['Shop'] }))
        .status,
    ).toBe(200);
    expect(
      (await api(other, 'POST', '/api/v1/inbound-rules', { trafficCenterId: await defaultCenter(other) })).status,
    ).toBe(201);
    expect((await api(account, 'DELETE', `/api/v1/inbound-rules/${first}`)).status).toBe(204);
    expect((await api(account, 'POST', '/api/v1/inbound-rules', { trafficCenterId: center })).status).toBe(201);
  });

  it('refuses a sender-name list over its ceiling without echoing it, on create and replace', async () => {
    const center = await defaultCenter(other);
    const names = Array.from({ length: NAMES + 1 }, (_, i) => `Name${i}`);
    const created = await api(other, 'POST', '/api/v1/inbound-rules', { trafficCenterId: center, senderNames: names });
    expect([created.status, created.body]).toEqual([
      422,
      { error: { code: 4220, msg: `Invalid senderNames: at most ${NAMES} items` } },
    ]);
    const [rule] = (await api(other, 'GET', '/api/v1/inbound-rules')).body.items;
    const replaced = await api(other, 'PUT', `/api/v1/inbound-rules/${rule.id}`, {
      trafficCenterId: center,
      senderNames: names,
    });
    expect(replaced.body).toEqual(created.body);
    expect(
      (
        await api(other, 'POST', '/api/v1/inbound-rules', {
          trafficCenterId: center,
          senderNames: names.slice(0, NAMES),
        })
      ).status,
    ).toBe(201);
  });

  it('refuses a body bigger than the largest valid rule or center before reading it: 413 4130', async () => {
    const center = await defaultCenter(other);
    // The largest valid rule: every name 64 characters outside the BMP, sent escaped, and a 2,048-character URL.
    const widest = Array.from({ length: NAMES }, () => '\u{1F600}'.repeat(64));
    const escaped = JSON.stringify({
      trafficCenterId: center,
      callbackUrl: `https://hooks.example/${'a'.repeat(2000)}`,
      senderNames: widest,
    }).replace(
      /[\u{10000}-\u{10FFFF}]/gu,
      (c) => `\\u${c.charCodeAt(0).toString(16)}\\u${c.charCodeAt(1).toString(16)}`,
    );
    const rule = await t.call(
      'PUT',
      `/api/v1/inbound-rules/${(await api(other, 'GET', '/api/v1/inbound-rules')).body.items[0].id}`,
      {
        token: other.system,
        rawBody: escaped,
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(rule.status).toBe(200);
    const huge = { trafficCenterId: center, senderNames: Array.from({ length: 100_000 }, (_, i) => `n${i}`) };
    const limit = 16 * 1024 + NAMES * 800;
    for (const [method, path] of [
      ['POST', '/api/v1/inbound-rules'],
      ['PUT', `/api/v1/inbound-rules/${rule.body.id}`],
    ] as const) {
      const reply = await api(other, method, path, huge);
      expect([reply.status, reply.body]).toEqual([
        413,
        { error: { code: 4130, msg: `Request body is larger than ${limit} bytes` } },
      ]);
    }
    const center413 = await api(other, 'POST', '/api/v1/traffic-centers', { name: 'x'.repeat(5000) });
    expect([center413.status, center413.body]).toEqual([
      413,
      { error: { code: 4130, msg: 'Request body is larger than 4096 bytes' } },
    ]);
    expect(
      (await api(other, 'GET', '/api/v1/inbound-rules')).body.items.every(
        (r: { senderNames: string[] | null }) => (r.senderNames?.length ?? 0) <= NAMES,
      ),
    ).toBe(true);
  });
});
