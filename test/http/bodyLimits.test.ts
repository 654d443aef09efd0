import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyLimitFor, largestJson, NO_BODY_LIMIT } from '../../src/http/bodyLimits.js';
import { ENGINES } from '../helpers/engines.js';
import { rawRequest } from '../helpers/rawHttp.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

describe('the largest valid JSON of a body schema', () => {
  it('escapes every character at worst (12 bytes beyond the BMP) and gives every value 16 bytes of whitespace', () => {
    expect(largestJson(Type.String({ maxLength: 10 }))).toBe(2 + 10 * 12 + 16);
    expect(largestJson(Type.Literal('SMS'))).toBe(2 + 3 * 6 + 16);
    expect(largestJson(Type.Enum(['a', 'bcd']))).toBe(2 + 3 * 6 + 16);
    expect(largestJson(Type.Boolean())).toBe(5 + 16);
    expect(largestJson(Type.Integer())).toBe(32 + 16);
    expect(largestJson(Type.Union([Type.String({ maxLength: 1 }), Type.Null()]))).toBe(2 + 12 + 16);
    const object = Type.Object({ ab: Type.Boolean(), c: Type.Optional(Type.Null()) }, { additionalProperties: false });
    // {"ab":true,"c":null}: keys escaped too, a colon and a comma each.
    expect(largestJson(object)).toBe(2 + (2 + 2 * 6 + 1 + 21 + 1) + (2 + 6 + 1 + 20 + 1) + 16);
    expect(largestJson(Type.Array(Type.Boolean(), { maxItems: 3 }))).toBe(2 + 3 * (21 + 1) + 16);
  });

  it('takes simple patterns and the uuid and date-time formats as ceilings of ASCII text', () => {
    expect(largestJson(Type.String({ pattern: '^[A-Z]{3}$' }))).toBe(2 + 3 * 6 + 16);
    expect(largestJson(Type.String({ pattern: '^[0-9]{1,15}$' }))).toBe(2 + 15 * 6 + 16);
    expect(largestJson(Type.String({ format: 'uuid' }))).toBe(2 + 36 * 6 + 16);
    expect(largestJson(Type.String({ format: 'date-time' }))).toBe(2 + 35 * 6 + 16);
    expect(largestJson(Type.String({ pattern: '^a+$' }))).toBeUndefined();
  });

  it('has none for a string without maxLength, an array without maxItems, an open object or anything', () => {
    expect(largestJson(Type.String())).toBeUndefined();
    expect(largestJson(Type.Array(Type.Boolean()))).toBeUndefined();
    expect(largestJson(Type.Object({ a: Type.Boolean() }))).toBeUndefined();
    expect(largestJson(Type.Record(Type.String(), Type.Boolean()))).toBeUndefined();
    expect(largestJson(Type.Unknown())).toBeUndefined();
    expect(() => bodyLimitFor(Type.Object({ a: Type.String() }), 'POST /x')).toThrow(/POST \/x: its body schema/);
    expect(bodyLimitFor(Type.Object({}, { additionalProperties: false }))).toBe(NO_BODY_LIMIT);
  });
});

/** The routes that take a body, from Herald's own OpenAPI document, with what each answers to a body too big. */
describe.each(ENGINES)('body limits by route (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let verifyToken: string;

  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s' } });
    account = await t.createAccount({ senderNames: [['SMS', 'Limits']] });
    verifyToken = (await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' })).body.token;
  });
  afterAll(async () => t?.close());

  /** What the route answers to a body declared bigger than any limit, sent with credentials it takes. */
  const declaredHuge = async (
    method: string,
    path: string,
    security: string | undefined,
    body: { type: string; length: number } = { type: 'application/json', length: 64 * 1024 * 1024 },
  ): Promise<unknown> => {
    const auth =
      security === 'adminToken'
        ? `Bearer ${ADMIN_TOKEN}`
        : security === 'bearerToken'
          ? `Bearer ${account.traffic}`
          : security === 'basicToken'
            ? `Basic ${/message|conversion|dispatch/.test(path) ? account.traffic : /verifier\//.test(path) ? verifyToken : account.system}`
            : undefined;
    const head =
      `${method.toUpperCase()} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${body.type}\r\n` +
      (auth ? `Authorization: ${auth}\r\n` : '') +
      `Content-Length: ${body.length}\r\n\r\n`;
    return (await rawRequest(t.url, head)).body;
  };

  /** HERALD_MNP_BODY_LIMIT's default. */
  const MNP_LIMIT = 4 * 1024 * 1024 * 1024;

  it('reads no more than the largest valid body of each route: 413 4130 from its Content-Length', async () => {
    const document = (await t.call('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const limits: Record<string, number> = {};
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'get' || method === 'head' || path.startsWith('/webhooks/')) continue;
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const security = Object.keys(operation.security?.[0] ?? {})[0];
        // The portability base's file is CSV, and its limit is gigabytes: declared one byte over it.
        const csv = path === '/admin/v1/mnp/import' ? { type: 'text/csv', length: MNP_LIMIT + 1 } : undefined;
        const answer = (await declaredHuge(method, concrete, security, csv)) as {
          error: { code: number; msg: string };
        };
        expect(answer.error.code, `${method} ${path}`).toBe(4130);
        limits[`${method.toUpperCase()} ${path}`] = Number(/larger than (\d+) bytes/.exec(answer.error.msg)![1]);
      }
    }
    const KiB = 1024;
    expect(limits).toEqual({
      // HERALD_BODY_LIMIT: 1000 messages.
      'POST /api/v1/message': 16 * KiB * KiB,
      // HERALD_BODY_LIMIT too: 1000 cascades, 1000 destinations of a dispatch with their substitutions.
      'POST /api/v1/message/cascade': 16 * KiB * KiB,
      // As the send: up to 1000 messages' destinations and texts.
      'POST /api/v1/message/estimate': 16 * KiB * KiB,
      'POST /api/v1/dispatch/{id}/messages': 16 * KiB * KiB,
      // A dispatch's message (its own ceiling: the message fields are validated as a message's), no body.
      'POST /api/v1/dispatch': 64 * KiB,
      'POST /api/v1/dispatch/{id}/pause': NO_BODY_LIMIT,
      'POST /api/v1/dispatch/{id}/resume': NO_BODY_LIMIT,
      'POST /api/v1/dispatch/{id}/start': NO_BODY_LIMIT,
      'POST /api/v1/dispatch/{id}/stop': NO_BODY_LIMIT,
      // 10,000 uuids, 1000 delivery ids, 1000 conversions, a WhatsApp template (a document, a header, 3 buttons).
      'POST /api/v1/message/stop': 2295 * KiB,
      'POST /api/v1/callbacks/replay': 230 * KiB,
      'POST /api/v1/flashcall-conversion': 886 * KiB,
      'POST /api/v1/templates': 157 * KiB,
      'PUT /api/v1/templates/{id}': 157 * KiB,
      'POST /api/v1/inbound-rules': 16 * KiB + 100 * 800,
      'PUT /api/v1/inbound-rules/{id}': 16 * KiB + 100 * 800,
      'POST /api/v1/sender-names': 13 * KiB,
      // A verifier: six steps of a channel, a sender name and a timeout, a name and a brand.
      'POST /api/v1/verifiers': 16 * KiB,
      'PATCH /api/v1/verifiers/{gatewayId}': 16 * KiB,
      // A gateway id and a destination (and a channel); a uuid and a code: what their schemas allow, escaped.
      'POST /api/v1/verifier/send': 2 * KiB,
      'POST /api/v1/verifier/check': 2 * KiB,
      // A traffic key id (at most 64 characters): the SMPP password of the key (smppServer/smppRoutes.ts).
      'POST /api/v1/smpp-passwords': KiB,
      'POST /admin/v1/accounts/{id}/smpp-passwords': KiB,
      'POST /admin/v1/accounts/{id}/sender-names': 14 * KiB,
      // A channel and a number, an account id to move one to: the smallest limit.
      'POST /admin/v1/accounts/{id}/inbound-numbers': NO_BODY_LIMIT,
      'PATCH /admin/v1/accounts/{id}/inbound-numbers/{number}': NO_BODY_LIMIT,
      'POST /admin/v1/sender-names/{id}/reject': 12 * KiB,
      // A bot token of at most 200 characters (a valid one has at most 71), escaped.
      'PATCH /admin/v1/sender-names/{id}': 3 * KiB,
      'POST /admin/v1/templates/{id}/reject': 12 * KiB,
      // 20 keywords of 80 UTF-16 units and a reply of 320, each unit escaped (6 bytes), and 1 KiB of the rest.
      'PUT /api/v1/opt-out': (20 * 80 + 320) * 6 + KiB,
      // A stop list entry (a number, its scope and a comment), and an import: a CSV of 500,000 characters, each
      // escaped at most 12 bytes (a surrogate pair as two \u escapes), and the rest.
      'POST /api/v1/stop-list': 14 * KiB,
      'POST /admin/v1/stop-list': 14 * KiB,
      'POST /api/v1/stop-list/import': 500_000 * 12 + 640,
      'POST /admin/v1/stop-list/import': 500_000 * 12 + 640,
      'POST /app/v1/session': 8 * KiB,
      'POST /admin/v1/session': 8 * KiB,
      'POST /admin/v1/accounts/{id}/balance': 7 * KiB,
      // The account's fields and the guard's settings: two lists of up to 300 countries, 20 currencies' limits.
      'PATCH /admin/v1/accounts/{id}': 25 * KiB,
      'PATCH /api/v1/settings': 22 * KiB,
      // A consent: a number, a sender name, a source and a proof of 2000 characters, escaped.
      'POST /api/v1/consents': 27 * KiB,
      'POST /api/v1/traffic-centers': 4 * KiB,
      'PATCH /api/v1/traffic-centers/{id}': 4 * KiB,
      'POST /admin/v1/accounts': 3 * KiB,
      'POST /admin/v1/accounts/{id}/users': 3 * KiB,
      // HERALD_MNP_BODY_LIMIT: the portability base's file, streamed to disk.
      'POST /admin/v1/mnp/import': MNP_LIMIT,
      // A route: 10,000 prefixes of 15 digits and five lists of 1000, each character escaped; a reorder: 10,000 ids.
      'POST /admin/v1/routes': 3134 * KiB,
      'PATCH /admin/v1/routes/{id}': 3134 * KiB,
      'POST /admin/v1/routes/reorder': 479 * KiB,
      'PUT /admin/v1/accounts/{id}/users/{userId}/password': 3 * KiB,
      // Small bodies, and routes that take none: 1 KiB.
      ...Object.fromEntries(
        [
          'POST /admin/v1/accounts/{id}/tokens',
          'DELETE /api/v1/stop-list/{id}',
          'POST /admin/v1/holds/{id}/release',
          'POST /admin/v1/holds/{id}/reject',
          'DELETE /admin/v1/stop-list/{id}',
          'POST /api/v1/api-keys',
          'POST /admin/v1/tariffs',
          'POST /admin/v1/sender-names/{id}/approve',
          'POST /admin/v1/templates/{id}/approve',
          'POST /api/v1/callback-secret/rotate',
          'DELETE /admin/v1/accounts/{id}/inbound-numbers/{number}',
          'DELETE /admin/v1/accounts/{id}/tokens/{tokenId}',
          'DELETE /admin/v1/accounts/{id}/users/{userId}',
          'DELETE /app/v1/session',
          'DELETE /admin/v1/session',
          'DELETE /api/v1/api-keys/{id}',
          'DELETE /api/v1/sender-names/{id}',
          'DELETE /api/v1/templates/{id}',
          'DELETE /api/v1/traffic-centers/{id}',
          'DELETE /api/v1/inbound-rules/{id}',
          'DELETE /api/v1/verifiers/{gatewayId}',
          'DELETE /admin/v1/tariffs/{id}',
          'DELETE /admin/v1/routes/{id}',
          // An unsubscribe page's form: its button has no name, nothing is sent.
          'POST /s/u/{code}',
        ].map((route) => [route, NO_BODY_LIMIT]),
      ),
    });
  });

  /** JSON text of `value` with every string character escaped and indented by 2: the longest way to write it. */
  /** Every UTF-16 unit of `text` as \uXXXX: 6 bytes a unit, 12 a character beyond the BMP. */
  const escapeAll = (text: string): string =>
    Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  const longest = (value: unknown): Buffer =>
    Buffer.from(
      JSON.stringify(value, null, 2).replace(
        /"((?:[^"\\]|\\.)*)"/g,
        (_, text: string) => `"${escapeAll(JSON.parse(`"${text}"`) as string)}"`,
      ),
    );
  const post = (path: string, token: string, body: Buffer, method = 'POST') =>
    t.call(method, path, { token, rawBody: body, headers: { 'content-type': 'application/json' } });

  it('reads the largest valid bodies, every character escaped and pretty-printed', async () => {
    const uuid = '0190f3a4-5b6c-7d8e-9fa0-b1c2d3e4f5a6';
    const stop = longest({ uuids: Array(10_000).fill(uuid) });
    expect(stop.length).toBeGreaterThan(2 * 1024 * 1024);
    expect((await post('/api/v1/message/stop', account.traffic, stop)).status).toBe(200);
    const replay = longest({ ids: Array(1000).fill(uuid) });
    expect((await post('/api/v1/callbacks/replay', account.system, replay)).status).toBe(200);
    const conversions = longest(
      Array(1000).fill({ messageUuid: uuid, result: 'NUMBER_VERIFIERD', code: '😀'.repeat(32) }),
    );
    expect((await post('/api/v1/flashcall-conversion', account.traffic, conversions)).status).toBe(200);
    // A WhatsApp template with every string at its longest, in characters beyond the BMP (12 bytes escaped): a
    // document with a document header and three link buttons.
    const wide = (n: number) => '😀'.repeat(n);
    const template = longest({
      channelType: 'WHATSAPP',
      templateType: 'AUTHENTICATION',
      pattern: wide(2000),
      senderName: wide(64),
      dateFrom: '2026-03-10T09:00:00.123456789+05:30',
      dateTo: '2027-03-10T09:00:00.123456789+05:30',
      content: {
        contentType: 'document',
        documentUrl: wide(2000),
        documentName: wide(2000),
        header: { documentUrl: wide(2000), documentName: wide(2000) },
        footer: { text: wide(60) },
        buttons: Array(3).fill({ text: wide(20), phone: wide(1000) }),
      },
    });
    expect(template.length).toBeGreaterThan(150 * 1024);
    // Read and judged (the sender name is none of the account's), not refused for its size.
    expect((await post('/api/v1/templates', account.system, template)).status).toBe(422);
  });
});
