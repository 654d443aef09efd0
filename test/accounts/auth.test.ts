import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

describe.each(ENGINES)('authentication per operation (spec 5, 7) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const send = (auth: string | undefined) =>
    t.call('POST', '/api/v1/message', { body: [message('VK')], ...(auth === undefined ? {} : { auth }) });
  const balance = (auth: string | undefined) => t.call('GET', '/api/v1/balance', auth === undefined ? {} : { auth });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ balance: 150.25 });
  });
  afterAll(async () => t?.close());

  const forged = () =>
    Buffer.from(`${Buffer.from(account.traffic, 'base64').toString().split(':')[0]}:wrong-secret`).toString('base64');

  it.each([
    ['no header', undefined, 401, 4010, 'Not Authenticated'],
    ['empty header', '', 401, 4010, 'Not Authenticated'],
    ['unknown scheme', 'Digest abc', 401, 4012, 'Bad credentials'],
    ['garbage token', 'Basic not-a-token', 401, 4012, 'Bad credentials'],
    ['unknown key id', `Basic ${Buffer.from('t1_nobody:secret').toString('base64')}`, 401, 4012, 'Bad credentials'],
  ])('send with %s -> %i %i', async (_name, auth, status, code, msg) => {
    const reply = await send(auth);
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual({ error: { code, msg } });
  });

  it('send with a right key id but wrong secret -> 401 4012', async () => {
    expect((await send(`Basic ${forged()}`)).body).toEqual({ error: { code: 4012, msg: 'Bad credentials' } });
  });

  it('send with TOKEN_2 -> 403 4030', async () => {
    const reply = await send(`Basic ${account.system}`);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ error: { code: 4030, msg: 'Access Denied' } });
  });

  it('send with TOKEN_1, Basic or Bearer -> 200', async () => {
    expect((await send(`Basic ${account.traffic}`)).status).toBe(200);
    expect((await send(`Bearer ${account.traffic}`)).status).toBe(200);
  });

  it('checks authentication before the body: 401 even for a malformed body', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(401);
  });

  it('balance with either token type -> the balance object', async () => {
    for (const token of [account.traffic, account.system]) {
      const reply = await balance(`Basic ${token}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ RUB: 150.25 });
    }
  });

  it('balance without or with a bad token -> 401', async () => {
    expect((await balance(undefined)).body).toEqual({ error: { code: 4010, msg: 'Not Authenticated' } });
    expect((await balance(`Basic ${forged()}`)).body).toEqual({ error: { code: 4012, msg: 'Bad credentials' } });
  });

  it('a revoked token -> 401 4012', async () => {
    const issued = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'traffic' });
    expect(issued.status).toBe(201);
    expect((await send(`Basic ${issued.body.token}`)).status).toBe(200);
    const revoked = await t.admin('DELETE', `/admin/v1/accounts/${account.id}/tokens/${issued.body.id}`);
    expect(revoked.status).toBe(204);
    expect((await send(`Basic ${issued.body.token}`)).body).toEqual({ error: { code: 4012, msg: 'Bad credentials' } });
    expect((await send(`Basic ${account.traffic}`)).status).toBe(200);
  });

  it('a blocked account -> 403 4032, and works again when unblocked', async () => {
    const other = await t.createAccount();
    await t.admin('PATCH', `/admin/v1/accounts/${other.id}`, { status: 'blocked' });
    const blocked = await send(`Basic ${other.traffic}`);
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ error: { code: 4032, msg: 'Account is blocked' } });
    await t.admin('PATCH', `/admin/v1/accounts/${other.id}`, { status: 'active' });
    expect((await send(`Basic ${other.traffic}`)).status).toBe(200);
  });
});
