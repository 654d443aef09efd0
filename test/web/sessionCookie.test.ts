import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const CSRF_REFUSED = {
  error: {
    code: 4037,
    msg: 'Missing or wrong X-CSRF-Token header: a request signed in by the session cookie must carry its CSRF token',
  },
};

/** The one Set-Cookie of an answer, split into its name=value and its attributes (lower-cased names). */
function setCookieOf(headers: Headers): { pair: string; attributes: Map<string, string> } {
  const all = headers.getSetCookie();
  expect(all).toHaveLength(1);
  const [pair, ...rest] = all[0]!.split(';').map((part) => part.trim());
  const attributes = new Map(
    rest.map((part) => {
      const [name, ...value] = part.split('=');
      return [name!.toLowerCase(), value.join('=')] as const;
    }),
  );
  return { pair: pair!, attributes };
}

describe.each(ENGINES)('web session cookie and CSRF (docs/web.md, "Sessions") (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_TRUST_PROXY: 'true' } });
    account = await t.createAccount();
    await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
      login: 'cookie-user',
      password: 'correct horse',
    });
  });
  afterAll(async () => t?.close());

  const signIn = async (headers: Record<string, string> = {}) => {
    const reply = await t.call('POST', '/app/v1/session', {
      body: { login: 'cookie-user', password: 'correct horse' },
      headers,
    });
    expect(reply.status).toBe(201);
    const { pair, attributes } = setCookieOf(reply.headers);
    return { reply, cookie: pair, attributes, csrf: reply.body.csrfToken as string };
  };

  it('sign-in sets an HttpOnly, SameSite=Strict cookie for 12 h, Secure over https; tokens answered too', async () => {
    const { reply, cookie, attributes, csrf } = await signIn();
    expect(cookie).toMatch(/^herald_session=[A-Za-z0-9+/=%.]+$/);
    expect(attributes.has('httponly')).toBe(true);
    expect(attributes.get('samesite')).toBe('Strict');
    expect(attributes.get('path')).toBe('/');
    expect(attributes.get('max-age')).toBe(String(12 * 3600));
    // Plain http (localhost): a Secure cookie would be dropped by the browser.
    expect(attributes.has('secure')).toBe(false);
    expect(csrf).toMatch(/^[\w-]{43}$/);
    // The tokens are answered as before: API clients use them with Basic.
    expect((await t.call('GET', '/api/v1/sender-names', { token: reply.body.system })).status).toBe(200);
    expect((await t.call('GET', '/api/v1/balance', { token: reply.body.traffic })).status).toBe(200);

    const https = await signIn({ 'x-forwarded-proto': 'https' });
    expect(https.attributes.has('secure')).toBe(true);
  });

  it('the cookie signs in GETs of both token kinds, and GET /app/v1/session tells who is signed in', async () => {
    const { cookie, csrf } = await signIn();
    const headers = { cookie };
    expect((await t.call('GET', '/api/v1/sender-names', { headers })).status).toBe(200);
    expect((await t.call('GET', '/api/v1/balance', { headers })).status).toBe(200);
    const now = await t.call('GET', '/app/v1/session', { headers });
    expect(now.status).toBe(200);
    expect(now.body).toEqual({
      accountId: account.id,
      accountName: 'Test account',
      login: 'cookie-user',
      expiresAt: new Date(t.clock.now().getTime() + 12 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      csrfToken: csrf,
    });
    // Without a cookie or a token: 401 4010, as any operation.
    expect((await t.call('GET', '/app/v1/session')).body.error.code).toBe(4010);
    // An API key is no session; a session's system token with Basic gets no CSRF token (it needs none).
    expect((await t.call('GET', '/app/v1/session', { token: account.system })).body.error.code).toBe(4030);
  });

  it('a state-changing request with the cookie needs its CSRF token: 403 4037 without it or with another', async () => {
    const { cookie, csrf } = await signIn();
    const other = await signIn();
    const body = { channelType: 'SMS', name: 'CookieSend' };
    const without = await t.call('POST', '/api/v1/sender-names', { headers: { cookie }, body });
    expect(without.status).toBe(403);
    expect(without.body).toEqual(CSRF_REFUSED);
    const wrong = await t.call('POST', '/api/v1/sender-names', {
      headers: { cookie, 'x-csrf-token': other.csrf },
      body,
    });
    expect(wrong.body).toEqual(CSRF_REFUSED);
    const sent = await t.call('POST', '/api/v1/message', {
      headers: { cookie },
      body: [{ channelType: 'SMS', senderName: 'Any', destination: '79001234567', content: 'x' }],
    });
    expect(sent.body).toEqual(CSRF_REFUSED);
    const right = await t.call('POST', '/api/v1/sender-names', {
      headers: { cookie, 'x-csrf-token': csrf },
      body,
    });
    expect(right.status).toBe(201);
    // Basic-token clients never send one.
    const basic = await t.call('POST', '/api/v1/sender-names', {
      token: account.system,
      body: { ...body, name: 'CookieBasic' },
    });
    expect(basic.status).toBe(201);
  });

  it('a cookie that holds no live session token is refused with 401 4012; a header wins over the cookie', async () => {
    for (const value of ['garbage', 'a.b', `${account.traffic}.${account.system}`]) {
      const reply = await t.call('GET', '/api/v1/sender-names', { headers: { cookie: `herald_session=${value}` } });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe(4012);
    }
    const reply = await t.call('GET', '/api/v1/sender-names', {
      token: account.system,
      headers: { cookie: 'herald_session=garbage' },
    });
    expect(reply.status).toBe(200);
  });

  it('signing out with the cookie ends the session and clears the cookie', async () => {
    const { cookie, csrf, reply } = await signIn();
    const refused = await t.call('DELETE', '/app/v1/session', { headers: { cookie } });
    expect(refused.body).toEqual(CSRF_REFUSED);
    expect((await t.call('GET', '/app/v1/session', { headers: { cookie } })).status).toBe(200);

    const out = await t.call('DELETE', '/app/v1/session', { headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.status).toBe(204);
    const cleared = setCookieOf(out.headers);
    expect(cleared.pair).toBe('herald_session=');
    expect(cleared.attributes.get('max-age')).toBe('0');
    expect((await t.call('GET', '/app/v1/session', { headers: { cookie } })).body.error.code).toBe(4012);
    expect((await t.call('GET', '/api/v1/sender-names', { token: reply.body.system })).status).toBe(401);
  });

  it('the cookie stops working when the session expires (test clock)', async () => {
    const { cookie } = await signIn();
    t.clock.advance(12 * 3600_000 - 1000);
    expect((await t.call('GET', '/app/v1/session', { headers: { cookie } })).status).toBe(200);
    t.clock.advance(1000);
    const ended = await t.call('GET', '/app/v1/session', { headers: { cookie } });
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe(4012);
  });
});

describe.each(ENGINES)('operator console session cookie (docs/web.md, "Sessions") (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => t?.close());

  const signIn = async () => {
    const reply = await t.call('POST', '/admin/v1/session', { body: { token: ADMIN_TOKEN } });
    expect(reply.status).toBe(201);
    const { pair, attributes } = setCookieOf(reply.headers);
    return { reply, cookie: pair, attributes, csrf: reply.body.csrfToken as string };
  };

  it('the admin token given once sets an HttpOnly, SameSite=Strict cookie that opens the operator API', async () => {
    const { reply, cookie, attributes, csrf } = await signIn();
    expect(cookie).toMatch(/^herald_admin=[\w-]{16}\.[\w-]{43}$/);
    expect(attributes.has('httponly')).toBe(true);
    expect(attributes.get('samesite')).toBe('Strict');
    expect(attributes.get('max-age')).toBe(String(12 * 3600));
    expect(reply.body.expiresAt).toMatch(/Z$/);
    expect((await t.call('GET', '/admin/v1/accounts', { headers: { cookie } })).status).toBe(200);
    expect((await t.call('GET', '/admin/v1/session', { headers: { cookie } })).body).toEqual(reply.body);
    // A change needs the CSRF token.
    const refused = await t.call('POST', '/admin/v1/accounts', { headers: { cookie }, body: { name: 'Csrf' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(CSRF_REFUSED);
    const made = await t.call('POST', '/admin/v1/accounts', {
      headers: { cookie, 'x-csrf-token': csrf },
      body: { name: 'Csrf' },
    });
    expect(made.status).toBe(201);
    // Bearer works as before, without a CSRF token.
    expect((await t.admin('POST', '/admin/v1/accounts', { name: 'Bearer' })).status).toBe(201);
  });

  it('a wrong admin token is refused with 401 4012 and sets no cookie', async () => {
    const reply = await t.call('POST', '/admin/v1/session', { body: { token: 'not-the-token' } });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe(4012);
    expect(reply.headers.getSetCookie()).toEqual([]);
    const forged = await t.call('GET', '/admin/v1/accounts', {
      headers: { cookie: 'herald_admin=AAAAAAAAAAAAAAAA.BBBB' },
    });
    expect(forged.body.error.code).toBe(4012);
  });

  it('signing out ends the session and clears the cookie; sessions expire after 12 hours', async () => {
    const { cookie, csrf } = await signIn();
    const out = await t.call('DELETE', '/admin/v1/session', { headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.status).toBe(204);
    expect(setCookieOf(out.headers).attributes.get('max-age')).toBe('0');
    expect((await t.call('GET', '/admin/v1/accounts', { headers: { cookie } })).body.error.code).toBe(4012);

    const later = await signIn();
    t.clock.advance(12 * 3600_000);
    expect((await t.call('GET', '/admin/v1/session', { headers: { cookie: later.cookie } })).status).toBe(401);
  });
});
