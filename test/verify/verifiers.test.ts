import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { TELEGRAM, verifyHarness } from '../helpers/verify.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const SMS = { channelType: 'SMS', senderName: 'Shop', timeout: 60 };
const FLASHCALL = { channelType: 'FLASHCALL', senderName: 'any', timeout: 30 };
const VOICECODE = { channelType: 'VOICECODE', senderName: 'voicecode', timeout: 120 };

/** Verifiers (DESIGN 16): TOKEN_2 CRUD, each workflow step validated as the message it will send. */
describe.each(ENGINES)('verifiers (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', 'Shop']] });
  });
  afterAll(async () => t?.close());

  const create = (body: unknown, token = account.system) => t.call('POST', '/api/v1/verifiers', { token, body });
  const refusal = async (body: unknown) => {
    const reply = await create(body);
    return [reply.status, reply.body.error];
  };

  it('creates a verifier with the defaults and a short random gatewayId; lists and gets it', async () => {
    const reply = await create({ name: 'Sign-in', brand: 'Shop', workflow: [FLASHCALL, SMS] });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      gatewayId: expect.stringMatching(/^[a-z0-9]{10}$/),
      name: 'Sign-in',
      brand: 'Shop',
      codeLength: 4,
      codeTtl: 300,
      maxChecks: 3,
      workflow: [FLASHCALL, SMS],
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const { gatewayId } = reply.body;
    expect((await t.call('GET', `/api/v1/verifiers/${gatewayId}`, { token: account.system })).body).toEqual(reply.body);
    const list = await t.call('GET', '/api/v1/verifiers', { token: account.system });
    expect(list.body.items.map((v: { gatewayId: string }) => v.gatewayId)).toContain(gatewayId);
    const other = await create({ name: 'Two', brand: 'Shop', workflow: [SMS] });
    expect(other.body.gatewayId).not.toBe(gatewayId);
  });

  it('refuses settings out of bounds with the field and the bound', async () => {
    const base = { name: 'X', brand: 'Shop', workflow: [SMS] };
    expect(await refusal({ ...base, codeLength: 9 })).toEqual([
      422,
      { code: 4220, msg: 'Invalid codeLength: 9 (must be <= 8)' },
    ]);
    expect(await refusal({ ...base, codeLength: 3 })).toEqual([
      422,
      { code: 4220, msg: 'Invalid codeLength: 3 (must be >= 4)' },
    ]);
    expect(await refusal({ ...base, codeTtl: 59 })).toEqual([
      422,
      { code: 4220, msg: 'Invalid codeTtl: 59 (must be >= 60)' },
    ]);
    expect(await refusal({ ...base, codeTtl: 3601 })).toEqual([
      422,
      { code: 4220, msg: 'Invalid codeTtl: 3601 (must be <= 3600)' },
    ]);
    expect(await refusal({ ...base, maxChecks: 0 })).toEqual([
      422,
      { code: 4220, msg: 'Invalid maxChecks: 0 (must be >= 1)' },
    ]);
    expect(await refusal({ ...base, maxChecks: 11 })).toEqual([
      422,
      { code: 4220, msg: 'Invalid maxChecks: 11 (must be <= 10)' },
    ]);
    expect(await refusal({ ...base, workflow: [{ ...SMS, timeout: 29 }] })).toEqual([
      422,
      { code: 4220, msg: 'Invalid workflow.0.timeout: 29 (must be >= 30)' },
    ]);
    expect(await refusal({ ...base, workflow: [SMS, { ...SMS, timeout: 901 }] })).toEqual([
      422,
      { code: 4220, msg: 'Invalid workflow.1.timeout: 901 (must be <= 900)' },
    ]);
    expect(await refusal({ ...base, workflow: [] })).toMatchObject([422, { code: 4220 }]);
    expect((await refusal({ ...base, workflow: Array(7).fill(SMS) }))[1]).toEqual({
      code: 4220,
      msg: 'Invalid workflow: at most 6 items',
    });
    expect(await refusal({ ...base, workflow: [{ ...SMS, channelType: 'FAX' }] })).toMatchObject([
      422,
      { code: 4220, msg: expect.stringMatching(/^Invalid workflow\.0\.channelType: "FAX"/) },
    ]);
    expect(await refusal({ name: 'X', workflow: [SMS] })).toEqual([422, { code: 4220, msg: 'Missing brand' }]);
    expect(await refusal({ ...base, brand: ' Shop' })).toMatchObject([
      422,
      { code: 4220, msg: expect.stringMatching(/^Invalid brand: " Shop"/) },
    ]);
    expect(await refusal({ ...base, brand: 'Sh\nop' })).toMatchObject([422, { code: 4220 }]);
    expect(await refusal({ ...base, secret: 1 })).toEqual([422, { code: 4220, msg: 'Invalid secret' }]);
  });

  it('validates each step as the message it will send, naming the step', async () => {
    expect(await refusal({ name: 'X', brand: 'Shop', workflow: [SMS, { ...SMS, senderName: 'Nobody' }] })).toEqual([
      422,
      { code: 4220, msg: 'No active sender name: (SMS, Nobody)', step: 1 },
    ]);
    expect(
      await refusal({ name: 'X', brand: 'Shop', workflow: [{ ...VOICECODE, senderName: 'robot' }, SMS] }),
    ).toMatchObject([422, { code: 4220, step: 0 }]);
    // A flash call shows a 4-digit code.
    expect(await refusal({ name: 'X', brand: 'Shop', codeLength: 6, workflow: [SMS, FLASHCALL] })).toEqual([
      422,
      { code: 4220, msg: 'Invalid codeLength: 6 (a FLASHCALL step sends 4-digit codes)', step: 1 },
    ]);
    // WHATSAPP is off until the operator turns it on.
    expect(
      await refusal({
        name: 'X',
        brand: 'Shop',
        workflow: [{ channelType: 'WHATSAPP', senderName: 'Shop', timeout: 60 }],
      }),
    ).toEqual([403, { code: 4031, msg: 'Channel is not enabled: WHATSAPP', step: 0 }]);
    const voice = await create({ name: 'Voice', brand: 'Shop', codeLength: 6, workflow: [VOICECODE, SMS] });
    expect(voice.status).toBe(201);
  });

  it('takes a TELEGRAM step of a bot with its token; its code goes as a Gateway code (DESIGN 18)', async () => {
    expect(await refusal({ name: 'X', brand: 'Shop', workflow: [TELEGRAM, SMS] })).toEqual([
      422,
      { code: 4220, msg: `No active sender name: (TELEGRAM, ${TELEGRAM.senderName})`, step: 0 },
    ]);
    const { client, sent, steps, codeOf, check } = verifyHarness(() => t);
    const c = await client(
      { codeLength: 8, codeTtl: 600, workflow: [TELEGRAM, SMS] },
      {
        senderNames: [
          ['SMS', 'Shop'],
          ['TELEGRAM', TELEGRAM.senderName],
        ],
      },
    );
    const uuid = await sent(c, '79161500010');
    // Herald runs no workers here: the first step waits, stored as the Telegram connector will take it.
    const [first] = await t.testDb.db.query<{ content: unknown; ttl: number; traffic_type: string }>(
      'SELECT content, ttl, traffic_type FROM messages WHERE cascade_id = $1 AND cascade_step = 1',
      [uuid],
    );
    expect(first).toMatchObject({
      content: { contentType: 'code', code: expect.stringMatching(/^\d{8}$/) },
      ttl: 600,
      traffic_type: 'AUTHORIZE',
    });
    expect(await steps(uuid)).toHaveLength(1);
    expect(await check(c, uuid, await codeOf(uuid))).toBe('CONFIRMED');
  });

  it('updates the fields given and validates the result; deletes', async () => {
    const made = (await create({ name: 'Up', brand: 'Shop', workflow: [SMS] })).body;
    const path = `/api/v1/verifiers/${made.gatewayId}`;
    t.clock.advance(1000);
    const updated = await t.call('PATCH', path, {
      token: account.system,
      body: { codeTtl: 600, workflow: [FLASHCALL, SMS] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Up', codeTtl: 600, codeLength: 4, workflow: [FLASHCALL, SMS] });
    expect(updated.body.updatedAt).not.toBe(made.updatedAt);
    const refused = await t.call('PATCH', path, { token: account.system, body: { codeLength: 5 } });
    expect(refused.body.error).toMatchObject({ code: 4220, step: 0 });
    expect((await t.call('GET', path, { token: account.system })).body.codeLength).toBe(4);
    expect((await t.call('DELETE', path, { token: account.system })).status).toBe(204);
    expect((await t.call('GET', path, { token: account.system })).body).toEqual({
      error: { code: 4040, msg: `Verifier ${made.gatewayId} not found` },
    });
    expect((await t.call('DELETE', path, { token: account.system })).status).toBe(404);
    expect((await t.call('PATCH', path, { token: account.system, body: { name: 'Z' } })).status).toBe(404);
  });

  it('changes only the fields a PATCH gives: a rename keeps codeLength, codeTtl, maxChecks (DESIGN 12)', async () => {
    const settings = { brand: 'Shop', codeLength: 6, codeTtl: 900, maxChecks: 5, workflow: [SMS] };
    const made = (await create({ name: 'Six digits', ...settings })).body;
    const path = `/api/v1/verifiers/${made.gatewayId}`;
    const renamed = await t.call('PATCH', path, { token: account.system, body: { name: 'Sign-in' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Sign-in', ...settings });
    const untouched = await t.call('PATCH', path, { token: account.system, body: {} });
    expect(untouched.body).toMatchObject({ name: 'Sign-in', ...settings });
    expect((await t.call('GET', path, { token: account.system })).body).toMatchObject({ name: 'Sign-in', ...settings });
  });

  it("keeps each account to its own verifiers: another account's gatewayId is not found", async () => {
    const made = (await create({ name: 'Mine', brand: 'Shop', workflow: [FLASHCALL] })).body;
    const other = await t.createAccount();
    const path = `/api/v1/verifiers/${made.gatewayId}`;
    expect((await t.call('GET', path, { token: other.system })).status).toBe(404);
    expect((await t.call('PATCH', path, { token: other.system, body: { name: 'Theirs' } })).status).toBe(404);
    expect((await t.call('DELETE', path, { token: other.system })).status).toBe(404);
    expect((await t.call('GET', '/api/v1/verifiers', { token: other.system })).body.items).toEqual([]);
    expect((await t.call('GET', path, { token: account.system })).body.name).toBe('Mine');
  });

  it('is in the OpenAPI document: verifiers with TOKEN_2, send and check with TOKEN_3 (Basic or Bearer)', async () => {
    const doc = (await t.call('GET', '/openapi.json')).body;
    for (const [path, method] of [
      ['/api/v1/verifiers', 'post'],
      ['/api/v1/verifiers', 'get'],
      ['/api/v1/verifiers/{gatewayId}', 'get'],
      ['/api/v1/verifiers/{gatewayId}', 'patch'],
      ['/api/v1/verifiers/{gatewayId}', 'delete'],
    ] as const)
      expect(doc.paths[path][method].security, `${method} ${path}`).toEqual([{ basicToken: [] }, { bearerToken: [] }]);
    const send = doc.paths['/api/v1/verifier/send'].post;
    const check = doc.paths['/api/v1/verifier/check'].post;
    for (const operation of [send, check])
      expect(operation.security).toEqual([{ basicToken: [] }, { bearerToken: [] }]);
    expect(send.requestBody.content['application/json'].schema.required).toEqual(['gatewayId', 'destination']);
    expect(send.responses['429']).toBeDefined();
    expect(check.responses['200'].content['application/json'].schema.properties.status.enum).toEqual([
      'CONFIRMED',
      'WRONG_CODE',
      'EXPIRED',
      'NOT_FOUND',
    ]);
    const step = doc.paths['/api/v1/verifiers'].post.requestBody.content['application/json'].schema.properties.workflow;
    expect(step.maxItems).toBe(6);
    expect(step.items.properties.timeout).toMatchObject({ minimum: 30, maximum: 900 });
  });

  it('takes TOKEN_2 only', async () => {
    const denied = await t.call('GET', '/api/v1/verifiers', { token: account.traffic });
    expect([denied.status, denied.body.error.code]).toEqual([403, 4030]);
  });

  it('keeps an account to 100 verifiers (409 4094)', async () => {
    const full = await t.createAccount();
    const body = { name: 'N', brand: 'Shop', workflow: [FLASHCALL] };
    // Ten at a time: a hundred at once would be more than an account's requests may wait (429 4290).
    for (let i = 0; i < 100; i += 10) await Promise.all(Array.from({ length: 10 }, () => create(body, full.system)));
    const [over, racing] = await Promise.all([create(body, full.system), create(body, full.system)]);
    for (const reply of [over, racing])
      expect(reply.body).toEqual({ error: { code: 4094, msg: 'Too many verifiers: at most 100 per account' } });
    expect((await t.call('GET', '/api/v1/verifiers', { token: full.system })).body.items).toHaveLength(100);
  });
});
