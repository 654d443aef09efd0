import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/accounts/passwords.js';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const BAD_CREDENTIALS = { error: { code: 4012, msg: 'Bad credentials' } };
const ACCESS_DENIED = { error: { code: 4030, msg: 'Access Denied' } };

describe.each(ENGINES)('web sessions and account users (docs/web.md) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let userId: number;
  const signIn = (body: unknown) => t.call('POST', '/app/v1/session', { body });
  /** A TOKEN_2 operation and a TOKEN_1 one: whether each token still works. */
  const systemWorks = async (token: string) => (await t.call('GET', '/api/v1/sender-names', { token })).status;
  const trafficWorks = async (token: string) => (await t.call('GET', '/api/v1/balance', { token })).status;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
    const made = await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
      login: 'anna@example.com',
      password: 'correct horse',
    });
    userId = made.body.id;
  });
  afterAll(async () => t?.close());

  describe('users (operator)', () => {
    it('creates a user: 201 without the password, stored as a salted scrypt hash', async () => {
      const made = await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
        login: 'Boris.K_1-x',
        password: 'p4ssw0rd!',
      });
      expect(made.status).toBe(201);
      expect(made.body).toEqual({
        id: expect.any(Number),
        accountId: account.id,
        login: 'Boris.K_1-x',
        createdAt: expect.stringMatching(ISO),
      });
      const [row] = await t.testDb.db.query<{ password_hash: string }>(
        'SELECT password_hash FROM account_users WHERE id = $1',
        [made.body.id],
      );
      // The test Herald hashes at HERALD_PASSWORD_SCRYPT_COST 10 (N = 1024).
      expect(row!.password_hash).toMatch(/^scrypt\$1024\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
      expect(await verifyPassword('p4ssw0rd!', row!.password_hash)).toBe(true);
      expect(await verifyPassword('p4ssw0rd?', row!.password_hash)).toBe(false);
    });

    it('lists the users of the account only, in the order they were made', async () => {
      const mine = await t.createAccount();
      const first = await t.admin('POST', `/admin/v1/accounts/${mine.id}/users`, {
        login: 'list-first',
        password: '12345678',
      });
      await t.admin('POST', `/admin/v1/accounts/${mine.id}/users`, { login: 'list-second', password: '12345678' });
      const other = await t.createAccount();
      await t.admin('POST', `/admin/v1/accounts/${other.id}/users`, { login: 'list-other', password: '12345678' });
      const list = await t.admin('GET', `/admin/v1/accounts/${mine.id}/users`);
      expect(list.status).toBe(200);
      expect(list.body.items.map((u: { login: string }) => u.login)).toEqual(['list-first', 'list-second']);
      expect(list.body.items[0]).toEqual({
        id: first.body.id,
        accountId: mine.id,
        login: 'list-first',
        createdAt: expect.stringMatching(ISO),
      });
    });

    it('refuses a login taken in any account with 409 4092', async () => {
      const other = await t.createAccount();
      const taken = await t.admin('POST', `/admin/v1/accounts/${other.id}/users`, {
        login: 'anna@example.com',
        password: 'whatever1',
      });
      expect(taken.status).toBe(409);
      expect(taken.body).toEqual({ error: { code: 4092, msg: 'Login is already taken: anna@example.com' } });
    });

    it('answers 404 for an unknown account and 422 for a bad login or password', async () => {
      expect(
        (await t.admin('POST', '/admin/v1/accounts/99999/users', { login: 'nobody', password: '12345678' })).body,
      ).toEqual({
        error: { code: 4040, msg: 'Account 99999 not found' },
      });
      expect((await t.admin('GET', '/admin/v1/accounts/99999/users')).status).toBe(404);
      for (const body of [
        { login: 'ab', password: '12345678' },
        { login: 'a'.repeat(65), password: '12345678' },
        { login: 'with space', password: '12345678' },
        { login: 'good-login', password: '1234567' },
        { login: 'good-login', password: 'x'.repeat(201) },
        { login: 'good-login' },
        { login: 'good-login', password: '12345678', extra: 1 },
      ]) {
        const reply = await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, body);
        expect(reply.status, JSON.stringify(body)).toBe(422);
        expect(reply.body.error.code).toBe(4220);
      }
    });

    it('never echoes a password or token it refuses, whatever was wrong with it', async () => {
      const secret = 'Tr0ub4dor&3';
      const refusals = [
        await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
          login: 'good-login',
          password: secret.slice(0, 7),
        }),
        await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login: 'good-login', password: [secret] }),
        await t.admin('PUT', `/admin/v1/accounts/${account.id}/users/${userId}/password`, {
          password: `${secret}${'x'.repeat(200)}`,
        }),
        await t.call('POST', '/app/v1/session', { body: { login: 'anna@example.com', password: { secret } } }),
        await t.call('POST', '/app/v1/session', { body: { token: `${secret}${'x'.repeat(400)}` } }),
        // A body refused for its shape, holding a password.
        await t.call('POST', '/app/v1/session', { body: [{ login: 'anna@example.com', password: secret }] }),
      ];
      for (const reply of refusals) {
        expect(reply.status, JSON.stringify(reply.body)).toBe(422);
        expect(JSON.stringify(reply.body)).not.toContain(secret.slice(0, 7));
      }
      expect(refusals[0]!.body).toEqual({
        error: { code: 4220, msg: 'Invalid password (must NOT have fewer than 8 characters); its value is not shown' },
      });
      expect(refusals[4]!.body.error.msg).toBe(
        'Invalid token (must NOT have more than 400 characters); its value is not shown',
      );
      // Other fields are shown as before.
      const login = await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login: 'a b', password: secret });
      expect(login.body.error.msg).toBe('Invalid login: "a b" (must match pattern "^[A-Za-z0-9._@-]{3,64}$")');
    });

    it('needs the admin token', async () => {
      const reply = await t.call('GET', `/admin/v1/accounts/${account.id}/users`, { token: account.system });
      expect(reply.status).toBe(401);
    });
  });

  describe('sign-in', () => {
    it('with login and password: two new session tokens of the account that expire in 12 hours', async () => {
      const session = await signIn({ login: 'anna@example.com', password: 'correct horse' });
      expect(session.status).toBe(201);
      expect(session.body).toEqual({
        accountId: account.id,
        accountName: 'Test account',
        login: 'anna@example.com',
        traffic: expect.any(String),
        system: expect.any(String),
        expiresAt: new Date(t.clock.now().getTime() + 12 * 3600_000).toISOString().replace('.000Z', 'Z'),
        // The session cookie's (sessionCookie.test.ts).
        csrfToken: expect.any(String),
      });
      expect(keyIdOf(session.body.traffic)).toMatch(/^t1_/);
      expect(keyIdOf(session.body.system)).toMatch(/^t2_/);
      expect(await trafficWorks(session.body.traffic)).toBe(200);
      expect(await systemWorks(session.body.system)).toBe(200);
      // Each token keeps its type: TOKEN_1 is refused where TOKEN_2 is needed, and the other way round.
      expect((await t.call('GET', '/api/v1/sender-names', { token: session.body.traffic })).body).toEqual(
        ACCESS_DENIED,
      );
      expect((await t.call('POST', '/api/v1/message', { token: session.body.system, body: [] })).body).toEqual(
        ACCESS_DENIED,
      );
    });

    it('with a system API key (TOKEN_2): login is null', async () => {
      const session = await signIn({ token: account.system });
      expect(session.status).toBe(201);
      expect(session.body).toMatchObject({ accountId: account.id, accountName: 'Test account', login: null });
      expect(await systemWorks(session.body.system)).toBe(200);
      expect(session.body.system).not.toBe(account.system);
    });

    it('session tokens are not API keys: neither listed nor revocable as keys', async () => {
      const session = await signIn({ token: account.system });
      const keys = await t.call('GET', '/api/v1/api-keys', { token: account.system });
      const ids = keys.body.items.map((k: { id: string }) => k.id);
      expect(ids).not.toContain(keyIdOf(session.body.system));
      expect(ids).not.toContain(keyIdOf(session.body.traffic));
      const adminList = await t.admin('GET', `/admin/v1/accounts/${account.id}/tokens`);
      expect(adminList.body.items.map((k: { id: string }) => k.id)).not.toContain(keyIdOf(session.body.system));
      expect(
        (await t.call('DELETE', `/api/v1/api-keys/${keyIdOf(session.body.traffic)}`, { token: account.system })).status,
      ).toBe(404);
    });

    it.each([
      ['a wrong password', () => ({ login: 'anna@example.com', password: 'wrong horse' })],
      ['an unknown login', () => ({ login: 'nobody@example.com', password: 'correct horse' })],
      ['a login of another case', () => ({ login: 'ANNA@example.com', password: 'correct horse' })],
      ['a traffic token', () => ({ token: account.traffic })],
      [
        'a token with a wrong secret',
        () => ({ token: Buffer.from(`${keyIdOf(account.system)}:nope`).toString('base64') }),
      ],
      ['a token that is no token', () => ({ token: 'not a token' })],
    ])('refuses %s with 401 4012', async (_name, body) => {
      const reply = await signIn(body());
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(BAD_CREDENTIALS);
    });

    it('refuses a session token: a session cannot renew itself', async () => {
      const session = await signIn({ token: account.system });
      expect((await signIn({ token: session.body.system })).body).toEqual(BAD_CREDENTIALS);
    });

    it('refuses a revoked API key', async () => {
      const key = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'system' } });
      await t.call('DELETE', `/api/v1/api-keys/${key.body.id}`, { token: account.system });
      expect((await signIn({ token: key.body.token })).body).toEqual(BAD_CREDENTIALS);
    });

    it('answers 422 for a body that is neither form', async () => {
      const cases: [unknown, string][] = [
        [{}, 'Missing login'],
        [{ login: 'anna@example.com' }, 'Missing password'],
        [
          { login: 'anna@example.com', password: 'correct horse', token: account.system },
          'Give either login and password, or token',
        ],
      ];
      for (const [body, msg] of cases) expect((await signIn(body)).body).toEqual({ error: { code: 4220, msg } });
      expect((await signIn({ login: 'anna@example.com', password: 'correct horse', remember: true })).status).toBe(422);
    });

    it('refuses a blocked account with 403 4032, both ways, once the credentials are right', async () => {
      const blocked = await t.createAccount();
      await t.admin('POST', `/admin/v1/accounts/${blocked.id}/users`, { login: 'blocked-user', password: '12345678' });
      await t.admin('PATCH', `/admin/v1/accounts/${blocked.id}`, { status: 'blocked' });
      const blockedBody = { error: { code: 4032, msg: 'Account is blocked' } };
      expect((await signIn({ login: 'blocked-user', password: '12345678' })).body).toEqual(blockedBody);
      expect((await signIn({ token: blocked.system })).status).toBe(403);
      expect((await signIn({ login: 'blocked-user', password: '87654321' })).body).toEqual(BAD_CREDENTIALS);
    });

    it('is in the OpenAPI document without a security requirement', async () => {
      const doc = (await t.call('GET', '/openapi.json')).body;
      expect(doc.paths['/app/v1/session'].post.security).toEqual([]);
      expect(Object.keys(doc.paths['/app/v1/session'])).toEqual(expect.arrayContaining(['post', 'delete']));
      expect(doc.paths['/admin/v1/accounts/{id}/users/{userId}'].delete).toBeDefined();
    });
  });

  describe('sign-out and the end of sessions', () => {
    it('DELETE /app/v1/session revokes both tokens of that session only', async () => {
      const a = await signIn({ login: 'anna@example.com', password: 'correct horse' });
      const b = await signIn({ login: 'anna@example.com', password: 'correct horse' });
      const out = await t.call('DELETE', '/app/v1/session', { token: a.body.system });
      expect(out.status).toBe(204);
      expect((await t.call('GET', '/api/v1/balance', { token: a.body.traffic })).body).toEqual(BAD_CREDENTIALS);
      expect((await t.call('GET', '/api/v1/sender-names', { token: a.body.system })).body).toEqual(BAD_CREDENTIALS);
      expect(await systemWorks(b.body.system)).toBe(200);
      expect(await trafficWorks(b.body.traffic)).toBe(200);
      expect(await systemWorks(account.system)).toBe(200);
    });

    it('only the session system token signs out: 403 4030 with its traffic token or API key, 401 without', async () => {
      const session = await signIn({ token: account.system });
      expect((await t.call('DELETE', '/app/v1/session', { token: session.body.traffic })).body).toEqual(ACCESS_DENIED);
      expect((await t.call('DELETE', '/app/v1/session', { token: account.system })).body).toEqual(ACCESS_DENIED);
      expect((await t.call('DELETE', '/app/v1/session', { token: account.traffic })).body).toEqual(ACCESS_DENIED);
      expect((await t.call('DELETE', '/app/v1/session')).body).toEqual({
        error: { code: 4010, msg: 'Not Authenticated' },
      });
      expect(await systemWorks(account.system)).toBe(200);
      expect(await systemWorks(session.body.system)).toBe(200);
    });

    it('deleting a user ends every session of that user, and only those', async () => {
      await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login: 'leaving', password: '12345678' });
      const users = await t.admin('GET', `/admin/v1/accounts/${account.id}/users`);
      const leaving = users.body.items.find((u: { login: string }) => u.login === 'leaving');
      const s1 = await signIn({ login: 'leaving', password: '12345678' });
      const s2 = await signIn({ login: 'leaving', password: '12345678' });
      const staying = await signIn({ login: 'anna@example.com', password: 'correct horse' });
      expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${leaving.id}`)).status).toBe(204);
      for (const s of [s1, s2]) {
        expect(await systemWorks(s.body.system)).toBe(401);
        expect(await trafficWorks(s.body.traffic)).toBe(401);
      }
      expect(await systemWorks(staying.body.system)).toBe(200);
      expect((await signIn({ login: 'leaving', password: '12345678' })).status).toBe(401);
      expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${leaving.id}`)).body).toEqual({
        error: { code: 4040, msg: `User ${leaving.id} not found` },
      });
      // A user of another account is not found through this account.
      expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id + 1}/users/${userId}`)).status).toBe(404);
    });

    it('an operator resets a password: the old one stops working and the sessions opened with it end', async () => {
      await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login: 'forgetful', password: 'old password' });
      const users = await t.admin('GET', `/admin/v1/accounts/${account.id}/users`);
      const user = users.body.items.find((u: { login: string }) => u.login === 'forgetful');
      const before = await signIn({ login: 'forgetful', password: 'old password' });
      const other = await signIn({ login: 'anna@example.com', password: 'correct horse' });
      const path = `/admin/v1/accounts/${account.id}/users/${user.id}/password`;
      expect((await t.admin('PUT', path, { password: 'short' })).body.error.code).toBe(4220);
      expect((await t.admin('PUT', path, { password: 'new password' })).status).toBe(204);
      expect(await systemWorks(before.body.system)).toBe(401);
      expect(await systemWorks(other.body.system)).toBe(200);
      expect((await signIn({ login: 'forgetful', password: 'old password' })).status).toBe(401);
      expect((await signIn({ login: 'forgetful', password: 'new password' })).status).toBe(201);
      // Only through its own account, and only for a user that exists.
      expect(
        (
          await t.admin('PUT', `/admin/v1/accounts/${account.id + 1}/users/${user.id}/password`, {
            password: 'new password',
          })
        ).status,
      ).toBe(404);
      expect(
        (await t.admin('PUT', `/admin/v1/accounts/${account.id}/users/999999/password`, { password: 'new password' }))
          .status,
      ).toBe(404);
    });

    it('revoking the API key a session signed in with ends that session (client or operator)', async () => {
      for (const revoke of [
        (id: string) => t.call('DELETE', `/api/v1/api-keys/${id}`, { token: account.system }),
        (id: string) => t.admin('DELETE', `/admin/v1/accounts/${account.id}/tokens/${id}`),
      ]) {
        const key = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'system' } });
        const session = await signIn({ token: key.body.token });
        const other = await signIn({ token: account.system });
        expect((await revoke(key.body.id)).status).toBe(204);
        expect(await systemWorks(session.body.system)).toBe(401);
        expect(await trafficWorks(session.body.traffic)).toBe(401);
        expect(await systemWorks(other.body.system)).toBe(200);
      }
    });

    it('session tokens stop working after 12 hours (test clock); API keys do not expire', async () => {
      const session = await signIn({ login: 'anna@example.com', password: 'correct horse' });
      t.clock.advance(12 * 3600_000 - 1000);
      expect(await systemWorks(session.body.system)).toBe(200);
      expect(await trafficWorks(session.body.traffic)).toBe(200);
      t.clock.advance(1000);
      expect((await t.call('GET', '/api/v1/sender-names', { token: session.body.system })).body).toEqual(
        BAD_CREDENTIALS,
      );
      expect(await trafficWorks(session.body.traffic)).toBe(401);
      expect((await t.call('DELETE', '/app/v1/session', { token: session.body.system })).status).toBe(401);
      expect(await systemWorks(account.system)).toBe(200);
      expect(await trafficWorks(account.traffic)).toBe(200);
    });
  });
});

describe.each(ENGINES)('web sign-in and the failed-authentication limit (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_AUTH_FAILURE_LIMIT: '3' } });
  });
  afterAll(async () => t?.close());

  it('counts wrong passwords and bad tokens as bad API tokens: then 429 4290, even for right credentials', async () => {
    const account = await t.createAccount();
    await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login: 'carol', password: '12345678' });
    expect((await t.call('POST', '/app/v1/session', { body: { login: 'carol', password: '12345678' } })).status).toBe(
      201,
    );
    expect((await t.call('POST', '/app/v1/session', { body: { login: 'carol', password: 'wrong-one' } })).status).toBe(
      401,
    );
    expect((await t.call('POST', '/app/v1/session', { body: { token: account.traffic } })).status).toBe(401);
    // A bad API token on another operation counts toward the same limit.
    expect(
      (await t.call('GET', '/api/v1/balance', { token: Buffer.from('t1_nobody:x').toString('base64') })).status,
    ).toBe(401);
    const blocked = await t.call('POST', '/app/v1/session', { body: { login: 'carol', password: '12345678' } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe(4290);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe.each(ENGINES)('web sign-in under load: the limit is charged before the password hash (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, {
      // One hash at a time and none waiting, so that a second sign-in at once is turned away; clients are told apart
      // by X-Forwarded-For from the loopback proxy.
      env: {
        HERALD_AUTH_FAILURE_LIMIT: '2',
        HERALD_PASSWORD_HASH_CONCURRENCY: '1',
        HERALD_PASSWORD_HASH_QUEUE: '0',
        HERALD_TRUST_PROXY: '127.0.0.1',
        // A hash long enough for the second sign-in to come while the first is running.
        HERALD_PASSWORD_SCRYPT_COST: '15',
      },
    });
    const account = await t.createAccount();
    await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login: 'dora', password: '12345678' });
  });
  afterAll(async () => t?.close());
  const signIn = (password: string, from: string) =>
    t.call('POST', '/app/v1/session', { body: { login: 'dora', password }, headers: { 'x-forwarded-for': from } });

  it('gives the charge back for a right password: sign-ins never use up the limit', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn('12345678', '192.0.2.1')).status).toBe(201);
    expect((await signIn('wrong-one', '192.0.2.1')).status).toBe(401);
    expect((await signIn('wrong-two', '192.0.2.1')).status).toBe(401);
    expect((await signIn('12345678', '192.0.2.1')).status).toBe(429);
  });

  it('turns away a sign-in beyond the hashes it runs and queues (503 5035, Retry-After), not charging it', async () => {
    const [first, second] = await Promise.all([signIn('wrong', '192.0.2.2'), signIn('wrong', '192.0.2.3')]);
    const busy = first.status === 503 ? first : second;
    expect([first.status, second.status].sort()).toEqual([401, 503]);
    expect(busy.body).toEqual({ error: { code: 5035, msg: 'Too many sign-ins in progress; retry after 1 s' } });
    expect(busy.headers.get('retry-after')).toBe('1');
    // The turned-away address still has its two attempts.
    const from = first.status === 503 ? '192.0.2.2' : '192.0.2.3';
    expect((await signIn('wrong', from)).status).toBe(401);
    expect((await signIn('wrong', from)).status).toBe(401);
    expect((await signIn('wrong', from)).status).toBe(429);
  });
});
