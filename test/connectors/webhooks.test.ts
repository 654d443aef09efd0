import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { ENGINES } from '../helpers/engines.js';
import { rawRequest } from '../helpers/rawHttp.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

/** A POST whose headers promise `length` bytes of JSON and whose body never comes. */
const headersOnly = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const signed = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe.each(ENGINES)('carrier webhooks and sign-in: bounded work for anyone (%s)', (engine) => {
  let t: TestHerald;
  let secret: string;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    t.call('POST', path, { rawBody: body, headers: { 'content-type': 'application/json', ...headers } });

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 20 } });
    secret = (t.simulators!.configFile.connectors.find((c) => c.id === 'sim-viber') as HttpConnectorConfig).secrets!
      .WEBHOOK!;
  });
  afterAll(async () => t?.close());

  it.each([
    ['/webhooks/nobody', 15 * 1024 * 1024, 404, { code: 4040, msg: 'Connector nobody not found' }],
    ['/nowhere', 15 * 1024 * 1024, 404, { code: 4040, msg: 'Route not found: POST /nowhere' }],
    ['/app/v1/session', 8 * 1024 + 1, 413, { code: 4130, msg: 'Request body is larger than 8192 bytes' }],
    [
      '/webhooks/http/sim-viber',
      3 * 1024 * 1024 + 1,
      413,
      { code: 4130, msg: 'Request body is larger than 3145728 bytes' },
    ],
  ])('POST %s with %i bytes coming: answered from the headers alone', async (path, length, status, error) => {
    const reply = await rawRequest(t.url, headersOnly(path, length));
    expect([reply.status, reply.body]).toEqual([status, { error }]);
  });

  it('checks the signature on the raw bytes before parsing them', async () => {
    const notJson = '{"statuses": [';
    expect((await post('/webhooks/http/sim-viber', notJson, { 'x-signature': signed('wrong', notJson) })).body).toEqual(
      {
        error: { code: 4012, msg: 'Bad credentials' },
      },
    );
    expect((await post('/webhooks/http/sim-viber', notJson)).status).toBe(401);
    const refused = await post('/webhooks/http/sim-viber', notJson, { 'x-signature': signed(secret, notJson) });
    expect(refused.body).toEqual({ error: { code: 4000, msg: 'Malformed JSON body: not valid JSON' } });
    // No body at all: the signature must still be the empty body's.
    expect((await t.call('POST', '/webhooks/http/sim-viber')).status).toBe(401);
    // A declarative connector's report is answered 200 with an empty body once recorded.
    const empty = await t.call('POST', '/webhooks/http/sim-viber', { headers: { 'x-signature': signed(secret, '') } });
    expect([empty.status, empty.body]).toEqual([200, '']);
  });
});

describe.each(ENGINES)('carrier webhooks: limits from the settings (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      env: { HERALD_AUTH_FAILURE_LIMIT: '2', HERALD_WEBHOOK_BODY_LIMIT: '2048' },
    });
  });
  afterAll(async () => t?.close());

  it('takes at most HERALD_WEBHOOK_BODY_LIMIT, and counts a bad signature as a failed authentication', async () => {
    const body = JSON.stringify({ statuses: [], padding: 'x'.repeat(3000) });
    const large = await t.call('POST', '/webhooks/http/sim-viber', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect([large.status, large.body]).toEqual([
      413,
      { error: { code: 4130, msg: 'Request body is larger than 2048 bytes' } },
    ]);
    const forged = () =>
      t.call('POST', '/webhooks/http/sim-viber', {
        rawBody: '{}',
        headers: { 'content-type': 'application/json', 'x-signature': signed('guess', '{}') },
      });
    expect((await forged()).status).toBe(401);
    expect((await forged()).status).toBe(401);
    const blocked = await forged();
    expect([blocked.status, blocked.body.error.code, blocked.headers.get('retry-after')]).toEqual([
      429,
      4290,
      expect.stringMatching(/^\d+$/),
    ]);
  });
});

describe.each(ENGINES)("Meta's webhook verification (%s)", (engine) => {
  let t: TestHerald;
  let dir: string;
  const verify = (token: string, from: string) =>
    t.call(
      'GET',
      `/webhooks/meta?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=4711`,
      { headers: { 'x-forwarded-for': from } },
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-verify-'));
    const connector = {
      id: 'meta',
      type: 'whatsapp',
      baseUrl: 'https://graph.example/v21.0',
      phoneNumberId: '1',
      accessToken: 'a',
      appSecret: 's',
      verifyToken: 'the-verify-token',
    };
    writeFileSync(join(dir, 'herald.json'), JSON.stringify({ connectors: [connector], routes: [] }));
    t = await startTestHerald(engine, {
      env: { HERALD_CONFIG: join(dir, 'herald.json'), HERALD_AUTH_FAILURE_LIMIT: '2', HERALD_TRUST_PROXY: '127.0.0.1' },
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('echoes the challenge for the right token, and counts a wrong one as a failed authentication', async () => {
    const right = await verify('the-verify-token', '198.51.100.1');
    expect([right.status, right.body]).toEqual([200, 4711]);
    expect((await verify('the-verify-tokeN', '198.51.100.2')).body).toEqual({
      error: { code: 4030, msg: 'Access Denied' },
    });
    expect((await verify('', '198.51.100.2')).status).toBe(403);
    const blocked = await verify('the-verify-token', '198.51.100.2');
    expect([blocked.status, blocked.body.error.code]).toEqual([429, 4290]);
    expect((await verify('the-verify-token', '198.51.100.3')).status).toBe(200);
    expect((await t.call('GET', '/webhooks/nobody?hub.mode=subscribe&hub.verify_token=x')).status).toBe(404);
  });
});
