import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

describe.each(ENGINES)('request-level errors (DESIGN 3) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_BODY_LIMIT: String(64 * 1024) } });
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  const raw = (rawBody: string | Buffer, contentType = 'application/json') =>
    t.call('POST', '/api/v1/message', { token: account.traffic, rawBody, headers: { 'content-type': contentType } });

  it.each([
    ['malformed JSON', '[{"channelType":', 400, 4000, 'Malformed JSON body: not valid JSON'],
    ['empty body', '', 400, 4000, 'Malformed JSON body: the body is empty'],
    ['prototype poisoning', '[{"__proto__":{"x":1}}]', 400, 4000, 'Malformed JSON body: not valid JSON'],
    ['a number', '42', 422, 4220, 'Request body must be a JSON array of message objects'],
    ['null', 'null', 422, 4220, 'Request body must be a JSON array of message objects'],
    ['a string', '"hello"', 422, 4220, 'Request body must be a JSON array of message objects'],
    // The deepest valid body is 5 levels; code that walks a value recursively overflows at a few thousand.
    [
      'JSON 33 levels deep',
      `${'['.repeat(33)}${']'.repeat(33)}`,
      400,
      4000,
      'Malformed JSON body: nested deeper than 32 levels',
    ],
    // PostgreSQL stores no NUL, in text or jsonb: the insert would fail with a 500.
    ['a NUL character', '[{"content":"a\\u0000b"}]', 400, 4000, 'Malformed JSON body: U+0000 (NUL) in a string'],
    ['a NUL in a key', '[{"a\\u0000":1}]', 400, 4000, 'Malformed JSON body: U+0000 (NUL) in a string'],
  ])('%s', async (_name, body, status, code, msg) => {
    const reply = await raw(body);
    expect(reply.body).toEqual({ error: { code, msg } });
    expect(reply.status).toBe(status);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
    'refuses Content-Type %s with 415 4150',
    async (contentType) => {
      const reply = await raw(JSON.stringify([message('VK')]), contentType);
      expect(reply.status).toBe(415);
      expect(reply.body).toEqual({ error: { code: 4150, msg: 'Content-Type must be application/json' } });
    },
  );

  it('accepts application/json with a charset', async () => {
    const reply = await raw(JSON.stringify([message('VK')]), 'application/json; charset=utf-8');
    expect(reply.status).toBe(200);
  });

  it('refuses a body over the limit with 413 4130', async () => {
    const reply = await raw(JSON.stringify([message('VK', { content: 'x'.repeat(70 * 1024) })]));
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ error: { code: 4130, msg: `Request body is larger than ${64 * 1024} bytes` } });
  });

  it('answers an unknown route with 404 4040, whatever the method (DESIGN 3, 12)', async () => {
    const reply = await t.call('GET', '/api/v1/nothing?x=1');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: 4040, msg: 'Route not found: GET /api/v1/nothing' } });
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const other = await t.call(method, '/api/v1/nothing', { body: {} });
      expect(other.body).toEqual({ error: { code: 4040, msg: `Route not found: ${method} /api/v1/nothing` } });
      expect(other.status).toBe(404);
    }
    // A known path with a method it does not take is an unknown route too.
    const wrongMethod = await t.call('DELETE', '/api/v1/balance');
    expect(wrongMethod.body).toEqual({ error: { code: 4040, msg: 'Route not found: DELETE /api/v1/balance' } });
  });

  it('takes JSON 32 levels deep, refuses a path segment over 100 chars with 414 4140, and NUL in a query', async () => {
    const deep = await raw(`${'['.repeat(32)}${']'.repeat(32)}`);
    expect(deep.body.error.code).toBe(4220);
    const long = await t.call('GET', `/api/v1/message/${'a'.repeat(101)}`, { token: account.traffic });
    expect([long.status, long.body]).toEqual([
      414,
      { error: { code: 4140, msg: 'URL path segment is longer than 100 characters' } },
    ]);
    const nul = await t.call('GET', '/api/v1/message?destination=%00', { token: account.traffic });
    expect([nul.status, nul.body.error.code]).toEqual([422, 4220]);
    expect(nul.body.error.msg).toMatch(/must not contain U\+0000/);
  });

  it('answers ping without authentication', async () => {
    const reply = await t.call('GET', '/api/v1/ping');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok' });
  });

  it('echoes a request id, or makes one', async () => {
    const given = await t.call('GET', '/api/v1/ping', { headers: { 'x-request-id': 'trace-42' } });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    const made = await t.call('GET', '/api/v1/ping');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never answers 5xx to odd message shapes', async () => {
    const odd: unknown[] = [
      [null],
      [[]],
      [1],
      [true],
      [{ channelType: null }],
      [{ channelType: ['SMS'] }],
      [{ channelType: {} }],
      [{ ...message('SMS'), content: null }],
      [{ ...message('SMS'), content: [] }],
      [{ ...message('SMS'), content: Infinity }],
      [{ ...message('WHATSAPP'), content: { contentType: 'text', text: 'x', buttons: [null] } }],
      [{ ...message('WHATSAPP'), content: { contentType: 'text', text: 'x', header: 'h' } }],
      [{ ...message('WHATSAPP'), content: { contentType: 'text', text: 'x', buttons: {} } }],
      [{ ...message('SMS'), tags: [null] }],
      [{ ...message('SMS'), hours: [null] }],
      [{ ...message('SMS'), callbackUrl: {} }],
      [{ ...message('SMS'), localSendTime: {} }],
      [{ ...message('VK'), ttl: {} }],
      [{ ...message('VK'), destination: {} }],
      [{ constructor: { prototype: {} } }],
      [{ ...message('VOICECODE'), content: { contentType: 'text', text: null } }],
    ];
    for (const body of odd) {
      const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
      expect(reply.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(reply.status, JSON.stringify(body)).toBeLessThan(500);
      expect(reply.body.error.code).toBeGreaterThanOrEqual(4000);
      expect(typeof reply.body.error.msg).toBe('string');
    }
  });
});
