import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const ACCESS_DENIED = { error: { code: 4030, msg: 'Access Denied' } };

describe.each(ENGINES)('API keys of the client (docs/web.md) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const keys = async (token = account.system) =>
    (await t.call('GET', '/api/v1/api-keys', { token })).body.items as Record<string, unknown>[];

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('lists the keys of the account without secrets', async () => {
    const reply = await t.call('GET', '/api/v1/api-keys', { token: account.system });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      items: [
        {
          id: keyIdOf(account.traffic),
          type: 'traffic',
          trafficCenterId: null,
          createdAt: expect.stringMatching(ISO),
          revokedAt: null,
          createdByUser: null,
        },
        {
          id: keyIdOf(account.system),
          type: 'system',
          trafficCenterId: null,
          createdAt: expect.stringMatching(ISO),
          revokedAt: null,
          createdByUser: null,
        },
      ],
    });
    expect(JSON.stringify(reply.body)).not.toContain(account.system);
  });

  it('issues keys that work at once, shown only in the answer', async () => {
    const traffic = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'traffic' } });
    expect(traffic.status).toBe(201);
    expect(traffic.body).toEqual({
      id: expect.stringMatching(/^t1_/),
      type: 'traffic',
      token: expect.any(String),
      createdAt: expect.stringMatching(ISO),
    });
    expect(keyIdOf(traffic.body.token)).toBe(traffic.body.id);
    expect((await t.call('GET', '/api/v1/balance', { token: traffic.body.token })).status).toBe(200);
    const system = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'system' } });
    expect(system.body.id).toMatch(/^t2_/);
    expect((await t.call('GET', '/api/v1/sender-names', { token: system.body.token })).status).toBe(200);
    const listed = await keys();
    expect(listed.map((k) => k.id)).toEqual(expect.arrayContaining([traffic.body.id, system.body.id]));
    expect(listed.every((k) => !('token' in k))).toBe(true);
  });

  it('issues verify keys (TOKEN_3, t3_), which take no traffic center and open no other operation', async () => {
    const verify = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'verify' } });
    expect(verify.status).toBe(201);
    expect(verify.body).toMatchObject({ id: expect.stringMatching(/^t3_/), type: 'verify' });
    expect((await keys()).find((k) => k.id === verify.body.id)).toMatchObject({ type: 'verify', revokedAt: null });
    for (const [method, path] of [
      ['GET', '/api/v1/balance'],
      ['GET', '/api/v1/api-keys'],
      ['GET', '/api/v1/message'],
    ] as const)
      expect((await t.call(method, path, { token: verify.body.token })).body, `${method} ${path}`).toEqual(
        ACCESS_DENIED,
      );
    // Not a key to sign in to the personal account with, either.
    expect((await t.call('POST', '/app/v1/session', { body: { token: verify.body.token } })).status).toBe(401);
    const centered = await t.call('POST', '/api/v1/api-keys', {
      token: account.system,
      body: { type: 'verify', trafficCenterId: 1 },
    });
    expect([centered.status, centered.body.error.code]).toEqual([422, 4220]);
  });

  it('binds a traffic key to a traffic center of the account only', async () => {
    const center = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'Shop' } });
    const bound = await t.call('POST', '/api/v1/api-keys', {
      token: account.system,
      body: { type: 'traffic', trafficCenterId: center.body.id },
    });
    expect(bound.status).toBe(201);
    expect((await keys()).find((k) => k.id === bound.body.id)).toMatchObject({ trafficCenterId: center.body.id });

    const other = await t.createAccount();
    const foreign = await t.call('POST', '/api/v1/traffic-centers', { token: other.system, body: { name: 'Theirs' } });
    const refused = await t.call('POST', '/api/v1/api-keys', {
      token: account.system,
      body: { type: 'traffic', trafficCenterId: foreign.body.id },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      error: { code: 4220, msg: `Invalid trafficCenterId: ${foreign.body.id} (no such center)` },
    });
    const system = await t.call('POST', '/api/v1/api-keys', {
      token: account.system,
      body: { type: 'system', trafficCenterId: center.body.id },
    });
    expect(system.status).toBe(422);
    expect((await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'admin' } })).status).toBe(
      422,
    );
  });

  it("refuses on the operator's route, as on the client's, a center that is missing or another account's", async () => {
    const other = await t.createAccount();
    const foreign = await t.call('POST', '/api/v1/traffic-centers', { token: other.system, body: { name: 'Theirs' } });
    for (const trafficCenterId of [foreign.body.id, 999999999]) {
      const body = { type: 'traffic', trafficCenterId };
      const expected = { error: { code: 4220, msg: `Invalid trafficCenterId: ${trafficCenterId} (no such center)` } };
      const client = await t.call('POST', '/api/v1/api-keys', { token: account.system, body });
      const operator = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, body);
      expect([client.status, client.body]).toEqual([422, expected]);
      expect([operator.status, operator.body]).toEqual([422, expected]);
    }
    const own = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'Desk' } });
    const bound = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, {
      type: 'traffic',
      trafficCenterId: own.body.id,
    });
    expect([bound.status, bound.body.trafficCenterId]).toEqual([201, own.body.id]);
  });

  it('revokes a key: it stops working and shows revokedAt; a second revoke is 404', async () => {
    const key = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'traffic' } });
    const revoked = await t.call('DELETE', `/api/v1/api-keys/${key.body.id}`, { token: account.system });
    expect(revoked.status).toBe(204);
    expect((await t.call('GET', '/api/v1/balance', { token: key.body.token })).body).toEqual({
      error: { code: 4012, msg: 'Bad credentials' },
    });
    expect((await keys()).find((k) => k.id === key.body.id)).toMatchObject({ revokedAt: expect.stringMatching(ISO) });
    const again = await t.call('DELETE', `/api/v1/api-keys/${key.body.id}`, { token: account.system });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { code: 4040, msg: `API key ${key.body.id} not found` } });
  });

  it("answers 404 for an unknown key or another account's key, which stays live", async () => {
    const other = await t.createAccount();
    expect((await t.call('DELETE', '/api/v1/api-keys/t1_nothing', { token: account.system })).status).toBe(404);
    expect(
      (await t.call('DELETE', `/api/v1/api-keys/${keyIdOf(other.traffic)}`, { token: account.system })).status,
    ).toBe(404);
    expect((await t.call('GET', '/api/v1/balance', { token: other.traffic })).status).toBe(200);
    expect((await keys(other.system)).map((k) => k.id)).not.toContain(keyIdOf(account.system));
  });

  it('refuses to revoke the key making the request with 409 4093; another system key may', async () => {
    const spare = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'system' } });
    const self = await t.call('DELETE', `/api/v1/api-keys/${spare.body.id}`, { token: spare.body.token });
    expect(self.status).toBe(409);
    expect(self.body).toEqual({
      error: { code: 4093, msg: 'This key authenticates the request; revoke it with another key' },
    });
    expect((await t.call('DELETE', `/api/v1/api-keys/${spare.body.id}`, { token: account.system })).status).toBe(204);
  });

  it('lets a web session manage the keys; revoking the key it signed in with ends it', async () => {
    const key = await t.call('POST', '/api/v1/api-keys', { token: account.system, body: { type: 'system' } });
    const session = await t.call('POST', '/app/v1/session', { body: { token: key.body.token } });
    expect((await t.call('GET', '/api/v1/api-keys', { token: session.body.system })).status).toBe(200);
    const made = await t.call('POST', '/api/v1/api-keys', { token: session.body.system, body: { type: 'traffic' } });
    expect(made.status).toBe(201);
    expect((await t.call('DELETE', `/api/v1/api-keys/${made.body.id}`, { token: session.body.system })).status).toBe(
      204,
    );
    expect((await t.call('GET', '/api/v1/api-keys', { token: session.body.system })).status).toBe(200);
    expect((await t.call('DELETE', `/api/v1/api-keys/${key.body.id}`, { token: session.body.system })).status).toBe(
      204,
    );
    expect((await t.call('GET', '/api/v1/api-keys', { token: session.body.system })).status).toBe(401);
    expect((await t.call('GET', '/api/v1/balance', { token: session.body.traffic })).status).toBe(401);
  });

  it('takes TOKEN_2 only: 403 4030 with TOKEN_1, 401 4010 without a token', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/api-keys', undefined],
      ['POST', '/api/v1/api-keys', { type: 'traffic' }],
      ['DELETE', `/api/v1/api-keys/${keyIdOf(account.system)}`, undefined],
    ] as const) {
      const denied = await t.call(method, path, { token: account.traffic, ...(body ? { body } : {}) });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body).toEqual(ACCESS_DENIED);
      expect((await t.call(method, path, body ? { body } : {})).body).toEqual({
        error: { code: 4010, msg: 'Not Authenticated' },
      });
    }
    expect((await t.call('GET', '/api/v1/balance', { token: account.system })).status).toBe(200);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/openapi.json')).body;
    // Both schemes, as on every client operation (http/operationDocs.ts): a token goes after Basic or Bearer.
    expect(doc.paths['/api/v1/api-keys'].get.security).toEqual([{ basicToken: [] }, { bearerToken: [] }]);
    expect(doc.paths['/api/v1/api-keys/{id}'].delete.responses['409']).toBeDefined();
  });
});
