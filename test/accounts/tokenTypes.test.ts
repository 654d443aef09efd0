import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

type Kind = 'traffic' | 'system' | 'verify' | 'either' | 'none';
type TokenType = 'traffic' | 'system' | 'verify';
const NAMES: Record<TokenType, string> = {
  traffic: 'TOKEN_1',
  system: 'TOKEN_2',
  verify: 'TOKEN_3',
};

/**
 * Which token each client operation takes (spec section 3: TOKEN_1 for sending and conversion, TOKEN_2 for system
 * entities, either of those two for the balance; DESIGN 16: TOKEN_3 for sending and checking codes, and only
 * that). Operations are read from the OpenAPI document, so a new route that is missing here fails the test instead
 * of escaping it.
 */
function kindOf(path: string): Kind {
  if (path === '/api/v1/ping') return 'none';
  if (path === '/api/v1/balance') return 'either';
  // The cost of messages before they are sent: read-only, asked by a sender (TOKEN_1) and by the pages (TOKEN_2).
  if (path === '/api/v1/message/estimate') return 'either';
  if (path.startsWith('/api/v1/message') || path.startsWith('/api/v1/dispatch')) return 'traffic';
  if (path === '/api/v1/flashcall-conversion') return 'traffic';
  if (path.startsWith('/api/v1/verifier/')) return 'verify';
  if (
    /^\/api\/v1\/(sender-names|templates|statistics|traffic-centers|inbound-rules|callbacks|callback-secret|api-keys|verifiers|stop-list|opt-out|settings|consents|smpp-passwords|smpp-binds)(\/|$)/.test(
      path,
    )
  )
    return 'system';
  throw new Error(`no token kind for ${path}`);
}

describe.each(ENGINES)('token types on every client operation (spec 3) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let tokens: Record<TokenType, string>;
  let operations: [method: string, path: string][] = [];

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
    const verify = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' });
    expect(verify.status).toBe(201);
    tokens = { traffic: account.traffic, system: account.system, verify: verify.body.token };
    const document = (await t.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, methods]) =>
        Object.keys(methods).map((method): [string, string] => [method.toUpperCase(), path]),
      );
  });
  afterAll(async () => t?.close());

  it('lists the client operations', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
    for (const [, path] of operations) expect(() => kindOf(path)).not.toThrow();
  });

  it('refuses the other type with 403 4030 and lets the right one past authorisation', async () => {
    for (const [method, template] of operations) {
      const kind = kindOf(template);
      if (kind === 'none') continue;
      // Placeholder ids: the right token gets 404 or 422 or 200, never 403; the wrong one is refused before that.
      const path = template.replace('{uuid}', '00000000-0000-7000-8000-000000000000').replace(/\{\w+\}/g, '999999');
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      for (const type of ['traffic', 'system', 'verify'] as const) {
        const reply = await t.call(method, path, { token: tokens[type], body });
        const allowed = kind === type || (kind === 'either' && type !== 'verify');
        const where = `${method} ${template} with ${NAMES[type]}`;
        if (allowed) expect(reply.status, where).not.toBe(403);
        else expect([reply.status, reply.body?.error?.code], where).toEqual([403, 4030]);
      }
      // No token at all: 401 4010 everywhere.
      expect((await t.call(method, path, { body })).body.error.code, `${method} ${template} without a token`).toBe(
        4010,
      );
    }
  });
});
