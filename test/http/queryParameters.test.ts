import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

/** Path parameters that pass their schemas (the route then answers 404, but validation comes first). */
const PATH_VALUES: Readonly<Record<string, string>> = {
  id: '1',
  uuid: '0190e5a0-0000-7000-8000-000000000000',
  gatewayId: 'g1',
};

/**
 * DESIGN 12: every query-taking route refuses an unknown or misspelt parameter with 422 4220 `Invalid <parameter>`.
 * Walks every GET operation of the OpenAPI document that needs credentials, so that a new route is covered too.
 */
describe.each(ENGINES)('unknown query parameters (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let operations: { path: string; admin: boolean }[] = [];

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
    const document = (await t.call('GET', '/openapi.json')).body;
    operations = Object.entries<Record<string, { security?: Record<string, unknown>[] }>>(document.paths).flatMap(
      ([path, methods]) => {
        const security = methods.get?.security ?? [];
        if (security.length === 0) return [];
        return [{ path, admin: security.some((s) => 'adminToken' in s) }];
      },
    );
  });
  afterAll(async () => t?.close());

  const get = async (path: string, admin: boolean) => {
    if (admin) return t.call('GET', path, { auth: `Bearer ${ADMIN_TOKEN}` });
    const traffic = await t.call('GET', path, { token: account.traffic });
    return traffic.status === 403 ? t.call('GET', path, { token: account.system }) : traffic;
  };

  it('walks the GET operations of the OpenAPI document', () => {
    expect(operations.map((o) => o.path)).toEqual(
      expect.arrayContaining(['/api/v1/message', '/api/v1/statistics', '/api/v1/traffic-centers', '/admin/v1/tariffs']),
    );
  });

  it('refuses a made-up parameter on every GET operation that needs credentials', async () => {
    const answers: Record<string, unknown> = {};
    for (const { path, admin } of operations) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => PATH_VALUES[name] ?? 'x');
      const reply = await get(`${url}?made_up=1`, admin);
      answers[path] = reply.status === 422 ? reply.body : `${reply.status} ${JSON.stringify(reply.body).slice(0, 80)}`;
    }
    const expected = Object.fromEntries(
      operations.map(({ path }) => [path, { error: { code: 4220, msg: 'Invalid made_up' } }]),
    );
    expect(answers).toEqual(expected);
  });

  it('names a misspelt parameter as written, and a bad value without the schema part', async () => {
    const misspelt = await t.call('GET', '/api/v1/statistics?channel_typ=VK', { token: account.system });
    expect(misspelt.body).toEqual({ error: { code: 4220, msg: 'Invalid channel_typ' } });
    const perPage = await t.call('GET', '/api/v1/message?per_page=0', { token: account.traffic });
    expect(perPage.status).toBe(422);
    expect(perPage.body.error.msg).toMatch(/^Invalid per_page: 0 /);
    const id = await t.call('GET', '/api/v1/templates/0', { token: account.system });
    expect(id.status).toBe(422);
    expect(id.body.error.msg).toMatch(/^Invalid id: 0 /);
  });
});
