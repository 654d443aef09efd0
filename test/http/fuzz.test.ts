import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { runCount } from '../helpers/runCount.js';
import type { Reply } from '../helpers/http.js';
import { rawRequest } from '../helpers/rawHttp.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/**
 * Property-based fuzzing of every operation Herald's own /openapi.json lists, with valid, mutated and hostile
 * paths, queries, headers and bodies: no request may get a 5xx, and every refusal is `{"error":{"code","msg"}}`.
 * Then what fetch cannot send, on raw sockets: bodies and header blocks over the limits, broken framing.
 * fast-check picks a seed per run and prints it with the shrunk counterexample; FUZZ_SEED replays one, FUZZ_RUNS
 * runs longer (30 requests per operation by default: about 5 s per engine).
 */
const RUNS = runCount('FUZZ_RUNS', 30);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const BODY_LIMIT = 128 * 1024;

type Schema = Record<string, any>;
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly params: readonly { in: string; name: string; schema?: Schema }[];
  readonly body: Schema | undefined;
}
interface FuzzRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** Percent-encodes the UTF-8 bytes of any string, lone surrogates included (encodeURIComponent throws on those). */
const encode = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');

/** Characters a header value can carry on the wire (fetch refuses control characters and anything above 0xFF). */
const headerText = (maxLength: number) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength,
  });

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\uFEFFbom',
  '\uD800',
  '\uDFFF\uD800',
  'e\u0301',
  '\u202Egnp.exe',
  '𝕳𝖊𝖗𝖆𝖑𝖉 🙂👨‍👩‍👧',
  'Ｈｅｒａｌｄ',
  "'; DROP TABLE messages; --",
  "' OR '1'='1",
  '%s%n%x%d',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x1F',
  'null',
  'true',
  '[]',
  '{}',
  '2026-02-30T25:61:61Z',
  '9999-12-31T23:59:59Z',
  '0000-00-00 00:00:00',
  '2026-01-01 08:00:00',
  '+79161234567',
  '7'.repeat(40),
  'http://user:pass@127.0.0.1:1/x',
  'javascript:alert(1)',
  'http://[::1',
  '01980000-0000-7000-8000-000000000000',
];
const HUGE_NUMBERS = [
  1e308,
  -1e308,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 63,
  2 ** 31,
  -(2 ** 31) - 1,
  0.1 + 0.2,
  -0,
  5e-324,
  1e21,
  1.2345678901234568e29,
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1, max: 40 }).map((n) => '🙂x'.repeat(n * 10)),
);
/** Nested arrays and objects deeper than any schema, but not so deep that the client's JSON.stringify fails. */
const deepValue = fc.integer({ min: 10, max: 2000 }).map((n) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < n; i++) value = i % 2 ? [value] : { a: value };
  return value;
});
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileString,
  fc.constantFrom<unknown>(...HUGE_NUMBERS, null, true, false, [], {}, [null], { __proto__: null }),
  fc.integer(),
  deepValue,
  fc.integer({ min: 1, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
);

/** JSON texts that are not what the API expects: broken, deep, poisoned, huge. */
const rawText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'NaN',
    '[1,]',
    "{'a':1}",
    '{"a":1,"a":2}',
    '\uFEFF[]',
    '\u0000',
    '{"a":"\\ud800"}',
    '"\\u0000"',
    '1'.repeat(400),
    '-',
    '[',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '[{"__proto__":{}}]',
    '{"a":1}garbage',
  ),
  // Up to 120 KB, under the 128 KiB limit: deeper than any call stack that walks them recursively.
  fc.integer({ min: 1000, max: 60_000 }).map((n) => '['.repeat(n)),
  fc.integer({ min: 1000, max: 60_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1000, max: 30_000 }).map((n) => `[${'{},'.repeat(n)}{}]`),
);

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
  ';',
  '*/*',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'APPLICATION/JSON',
  'application/json, text/plain',
  'application/vnd.api+json',
  'application/jsonx',
  'application/json; boundary="',
];

/** Values a schema accepts, or looks like it does: the starting point for mutations. */
function fromSchema(schema: Schema | undefined, doc: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 8) return fc.jsonValue({ maxDepth: 1 });
  if (schema.$ref) return fromSchema(doc.components.schemas[String(schema.$ref).split('/').pop()!], doc, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, doc, depth + 1)));
  if (schema.allOf) return fromSchema(Object.assign({}, ...(schema.allOf as Schema[])), doc, depth + 1);
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type: string) => fromSchema({ ...schema, type }, doc, depth + 1)));
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'date-time')
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      const minLength = schema.minLength ?? 0;
      return fc.string({ minLength, maxLength: Math.min(schema.maxLength ?? minLength + 20, minLength + 20) });
    }
    case 'integer': {
      const min = schema.minimum ?? -1000;
      return fc.integer({ min, max: Math.min(schema.maximum ?? min + 10_000, Number.MAX_SAFE_INTEGER) });
    }
    case 'number': {
      const min = schema.minimum ?? -1000;
      return fc.double({ min, max: schema.maximum ?? min + 10_000, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(fromSchema(schema.items, doc, depth + 1), {
        minLength,
        maxLength: Math.min(schema.maxItems ?? 3, minLength + 3),
      });
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, fromSchema(s, doc, depth + 1)])),
        { requiredKeys: (schema.required ?? []).filter((key: string) => key in properties) },
      );
      return Object.keys(properties).length > 0
        ? record
        : fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Every object and array inside a value, with the path to it. */
function containers(
  value: unknown,
  path: (string | number)[] = [],
  found: (string | number)[][] = [],
): (string | number)[][] {
  if (value !== null && typeof value === 'object' && found.length < 200) {
    found.push(path);
    for (const [key, child] of Object.entries(value))
      containers(child, [...path, Array.isArray(value) ? Number(key) : key], found);
  }
  return found;
}

const MUTATIONS = ['replace', 'delete', 'extra', 'wrap', 'whole', 'poison'] as const;
/** Characters that a valid-looking string may carry into storage, comparison or a message: NUL, halves, marks. */
const POISON = ['\u0000', '\uD800', '\uDC00', '\uFEFF', '\u202E', '\u0301', '🙂', "'", '"', '\\', '%', '\n', '\u2028'];

/**
 * One change at one place of a valid value: a field replaced by a hostile value, removed, added, wrapped, or a string
 * poisoned with one character.
 */
function mutate(
  valid: unknown,
  mutation: (typeof MUTATIONS)[number],
  pick: number,
  value: unknown,
  extraKey: string,
): unknown {
  // The value sits in a holder so that the root is a field like any other.
  const holder: Record<string, unknown> = { v: structuredClone(valid) };
  if (mutation === 'whole') return value;
  const paths = containers(holder);
  const path = paths[pick % paths.length]!;
  const target = path.reduce<any>((node, key) => node[key], holder);
  const keys = Object.keys(target);
  if (mutation === 'poison') {
    const strings = keys.filter((key) => typeof target[key] === 'string');
    const key = strings[pick % Math.max(strings.length, 1)];
    if (key === undefined) return holder.v;
    const text = target[key] as string;
    target[key] =
      text.slice(0, pick % (text.length + 1)) + POISON[pick % POISON.length] + text.slice(pick % (text.length + 1));
  } else if (mutation === 'extra' || keys.length === 0) {
    if (target === holder) return value;
    target[Array.isArray(target) ? target.length : extraKey] = value;
  } else {
    const key = keys[pick % keys.length]!;
    if (mutation === 'replace') target[key] = value;
    else if (mutation === 'wrap') target[key] = [target[key]];
    else if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  }
  return holder.v;
}

/** The operations the document lists (HEAD is the same route as GET). */
function operations(doc: Schema): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: op.parameters ?? [],
      body: op.requestBody?.content?.['application/json']?.schema,
    })),
  );
}

/** Refusals are client errors in the API's format; nothing a client sends may cause a 5xx. */
function expectSafe(request: FuzzRequest, reply: Reply): void {
  const where = `${request.method} ${request.url.slice(0, 300)}`;
  expect(reply.status, where).toBeLessThan(500);
  if (reply.status >= 400 && request.method !== 'HEAD') {
    expect(reply.body, where).toMatchObject({ error: { code: expect.any(Number), msg: expect.any(String) } });
    expect(Math.floor(reply.body.error.code / 10), where).toBe(reply.status);
    expect(reply.headers.get('content-type'), where).toMatch(/^application\/json/);
  }
}

/** Real rows for path parameters and seed bodies, so that fuzzed requests also reach the code behind the lookups. */
interface Fixtures {
  readonly main: TestAccount;
  readonly other: TestAccount;
  /** A token of a blocked account. */
  readonly blocked: string;
  readonly ids: readonly string[];
  readonly messageUuid: string;
  readonly trafficCenterId: number;
}

function seeds(f: Fixtures): Record<string, unknown[]> {
  const template = {
    channelType: 'WHATSAPP',
    templateType: 'SERVICE',
    pattern: 'Code %s',
    senderName: SENDER,
    dateFrom: '2026-01-01T00:00:00Z',
  };
  const rule = {
    trafficCenterId: f.trafficCenterId,
    callbackUrl: 'http://127.0.0.1:9/in',
    senderNames: [SENDER],
    channelType: 'WHATSAPP',
  };
  return {
    'POST /api/v1/message': [
      [message('SMS')],
      [message('VK'), message('VIBER')],
      [message('WHATSAPP')],
      [message('VOICECODE'), message('FLASHCALL')],
      [
        message('SMS', {
          callbackUrl: 'http://u:p@127.0.0.1:9/cb',
          callbackEvents: ['sent'],
          tags: ['a'],
          ttl: 3600,
          hours: [9, 18],
          days: [1, 5],
          useLocalTime: true,
        }),
      ],
    ],
    'POST /api/v1/message/stop': [{ uuids: [f.messageUuid] }],
    'POST /api/v1/flashcall-conversion': [[{ messageUuid: f.messageUuid, result: 'NUMBER_VERIFIED', code: '1234' }]],
    'POST /admin/v1/accounts': [{ name: 'Fuzz', currency: 'RUB', creditLimit: 10 }],
    'PATCH /admin/v1/accounts/{id}': [{ name: 'Fuzzed', channels: { WHATSAPP: true }, creditLimit: 5, inbound: true }],
    'POST /admin/v1/accounts/{id}/balance': [{ currency: 'RUB', amount: 10 }],
    'POST /admin/v1/accounts/{id}/tokens': [{ type: 'traffic', trafficCenterId: f.trafficCenterId }],
    'POST /admin/v1/accounts/{id}/sender-names': [
      { channelType: 'SMS', name: 'FuzzShop', startDate: '2026-01-01T00:00:00Z' },
    ],
    'POST /admin/v1/tariffs': [
      { channelType: 'SMS', prefix: '7916', price: 0.5, currency: 'RUB' },
      { channelType: 'VIBER', country: 'DE', price: 1, currency: 'EUR' },
    ],
    'POST /api/v1/sender-names': [{ channelType: 'SMS', name: 'Shop' }],
    'POST /api/v1/templates': [template],
    'PUT /api/v1/templates/{id}': [template],
    'POST /api/v1/traffic-centers': [{ name: 'TC' }],
    'POST /api/v1/inbound-rules': [rule],
    'PUT /api/v1/inbound-rules/{id}': [rule],
  };
}

const pathValue = (f: Fixtures) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...f.ids) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 40 }).map(String) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '1.5',
        '1e3',
        '0x1',
        '+1',
        '01',
        '2147483648',
        '9223372036854775808',
        '1e309',
        'Infinity',
        '1'.repeat(90),
        'NaN',
        'null',
        '%00',
        '%zz',
        '%',
        '%2F',
        '%252F',
        '..',
        f.messageUuid.toUpperCase(),
        `${f.messageUuid}x`,
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
      ),
    },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(encode) },
    { weight: 1, arbitrary: fc.string({ minLength: 101, maxLength: 200 }).map(encode) },
  );

const b64 = (text: string) => Buffer.from(text).toString('base64');
const AUTH_NOISE = [
  '',
  'Basic',
  'Bearer',
  'Basic ',
  'Digest abc',
  'Basic Og==',
  'Basic YTo=',
  'Basic Ojo6',
  'Bearer a:b',
  `Basic ${'A'.repeat(6000)}`,
  `Basic ${b64('\u0000:secret')}`,
  `Bearer ${b64("t1_x' OR '1'='1:secret")}`,
  `Basic ${b64(`${'k'.repeat(300)}:s`)}`,
  `Basic ${b64('\uD800:\uDC00')}`,
];

function authFor(admin: boolean, f: Fixtures): fc.Arbitrary<string | undefined> {
  const valid = admin
    ? [`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, `Basic ${f.main.traffic}`]
    : [
        `Basic ${f.main.traffic}`,
        `Basic ${f.main.system}`,
        `Bearer ${f.main.traffic}`,
        `Bearer ${f.main.system}`,
        `Basic ${f.other.system}`,
        `Bearer ${ADMIN_TOKEN}`,
      ];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ...AUTH_NOISE,
        `Basic ${f.blocked}`,
        `Basic ${f.main.traffic}x`,
        `Basic ${f.main.traffic.slice(0, -2)}`,
        `bearer ${ADMIN_TOKEN}x`,
        `Basic ${Buffer.from(f.main.traffic).toString('base64')}`,
        `Basic ${f.main.traffic} ${f.main.traffic}`,
        `Bearer  ${ADMIN_TOKEN}  `,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('Basic ', 'Bearer ', ''), headerText(60)).map(([scheme, s]) => scheme + s),
    },
  );
}

/** A request to one operation: its own method mostly, with fuzzed path parameters, query, headers and body. */
function requestFor(op: Operation, doc: Schema, f: Fixtures): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const path = fc
    .tuple(...pathParams.map(() => pathValue(f)))
    .map((values) => pathParams.reduce((p, param, i) => p.replace(`{${param.name}}`, values[i]!), op.path));

  const queryValue = (schema: Schema | undefined) =>
    fc.oneof(
      fromSchema(schema, doc),
      fc.tuple(fromSchema(schema, doc), fc.constantFrom(...POISON)).map(([v, c]) => `${String(v)}${c}`),
      hostileString,
      fc.constantFrom(...HUGE_NUMBERS.map(String), 'Infinity', '-Infinity', '1e309', 'NaN'),
      fc.array(hostileString, { maxLength: 3 }),
    );
  const query = fc
    .tuple(
      fc.tuple(...queryParams.map((p) => fc.option(queryValue(p.schema), { nil: undefined }))),
      fc.array(fc.tuple(hostileString, hostileString), { maxLength: 2 }),
      fc.constantFrom('', '', '', '&%zz=%', '&a[b][c]=1&a=2', '&&&==', '&page=1&page=2', `&${'x'.repeat(3000)}=1`),
    )
    .map(([values, extra, tail]) => {
      const pairs: [string, unknown][] = queryParams.flatMap((p, i) => {
        const value = values[i];
        if (value === undefined) return [];
        return Array.isArray(value) ? value.map((v): [string, unknown] => [p.name, v]) : [[p.name, value]];
      });
      const text =
        [...pairs, ...extra]
          .map(([k, v]) => `${encode(String(k))}=${encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}`)
          .join('&') + tail;
      return text === '' ? '' : `?${text}`;
    });

  const valid = fc.oneof(
    fromSchema(op.body, doc),
    ...(seeds(f)[`${op.method} ${op.path}`] ?? []).map((seed) => fc.constant(seed)),
  );
  const json = fc.oneof(
    { weight: 3, arbitrary: valid },
    {
      weight: 5,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...MUTATIONS), fc.nat(), hostile, hostileString)
        .map(([v, mutation, pick, value, key]) => mutate(v, mutation, pick, value, key)),
    },
    { weight: 1, arbitrary: hostile },
  );
  const anyBody = fc.oneof(
    { weight: 8, arbitrary: json.map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: rawText },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const body = op.body
    ? anyBody
    : fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anyBody });
  const contentType = fc.oneof(
    { weight: 10, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: headerText(40) },
  );
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(op.method) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'FOO'),
    },
  );
  const optionalHeader = (arbitrary: fc.Arbitrary<string>) => fc.option(arbitrary, { nil: undefined, freq: 3 });

  return fc
    .record({
      method,
      path,
      query,
      body,
      authorization: authFor(op.path.startsWith('/admin/'), f),
      'content-type': contentType,
      'x-request-id': optionalHeader(
        fc.oneof(fc.constantFrom('trace-1', 'a'.repeat(128), 'a'.repeat(129), 'a'.repeat(3000)), headerText(100)),
      ),
      'idempotency-key': optionalHeader(fc.oneof(fc.uuid(), headerText(300))),
      accept: optionalHeader(fc.constantFrom('application/xml', 'text/html', '*/*', 'application/json;q=0')),
      'content-encoding': optionalHeader(fc.constantFrom('gzip', 'br', 'identity', 'x')),
      'x-forwarded-for': optionalHeader(headerText(40)),
    })
    .map(({ method: m, path: p, query: q, body: b, ...headers }) => ({
      method: m,
      url: p + q,
      headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>,
      // fetch sends no body with GET or HEAD; the raw-socket cases below do.
      body: m === 'GET' || m === 'HEAD' ? undefined : b,
    }));
}

/** Runs a property; a failure names its seed and its shrunk request, with long strings cut. */
async function fuzz(
  requests: fc.Arbitrary<FuzzRequest>,
  check: (request: FuzzRequest) => Promise<void>,
): Promise<void> {
  const details = await fc.check(fc.asyncProperty(requests, check), { numRuns: RUNS, seed: SEED });
  if (!details.failed) return;
  const cut = (_key: string, value: unknown) =>
    typeof value === 'string' && value.length > 300 ? `${value.slice(0, 300)}... (${value.length} characters)` : value;
  throw new Error(
    `failed after ${details.numRuns} requests; replay with FUZZ_SEED=${details.seed} ` +
      `(path ${details.counterexamplePath})\n` +
      `${JSON.stringify(details.counterexample?.[0], cut, 2)}\n` +
      `${(details.errorInstance as Error | undefined)?.message ?? ''}`,
  );
}

async function send(t: TestHerald, request: FuzzRequest): Promise<Reply> {
  return t.call(request.method, request.url, {
    headers: request.headers,
    // A Buffer, not a string: fetch would add text/plain to a string body without a Content-Type.
    ...(request.body === undefined ? {} : { rawBody: Buffer.from(request.body, 'utf8') }),
  });
}

/** Requests fetch cannot send: broken framing, bytes no header may hold, paths it would normalise. */
const RAW_REQUESTS: readonly [string, (f: Fixtures) => string | Buffer][] = [
  ['an unknown method', () => 'FOO /api/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['garbage for a request line', () => '\x00\x01garbage\r\n\r\n'],
  ['an unknown HTTP version', () => 'GET /api/v1/ping HTTP/2.5\r\nHost: x\r\n\r\n'],
  ['bare LF line ends', () => 'GET /api/v1/ping HTTP/1.1\nHost: x\n\n'],
  ['no Host header', () => 'GET /api/v1/ping HTTP/1.1\r\nConnection: close\r\n\r\n'],
  [
    'a control character in a header',
    (f) => `GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${f.main.traffic}\x01\r\n\r\n`,
  ],
  ['a space in a header name', () => 'GET /api/v1/ping HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
  [
    'UTF-8 in Authorization',
    () =>
      Buffer.from(
        'GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Basic пароль🙂\r\nConnection: close\r\n\r\n',
      ),
  ],
  [
    'two Content-Lengths',
    () => 'POST /api/v1/message HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n[]',
  ],
  [
    'Content-Length and chunked',
    () =>
      'POST /api/v1/message HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  ],
  ['a bad chunk size', () => 'POST /api/v1/message HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  [
    'an Expect other than 100-continue',
    () => 'POST /api/v1/message HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n[]',
  ],
  [
    'Expect: 100-continue',
    (f) =>
      `POST /api/v1/message HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${f.main.traffic}\r\n` +
      `Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n[]`,
  ],
  ['invalid percent-encoding in a path parameter', () => 'GET /api/v1/message/%zz HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a path parameter over 100 characters', () => `GET /api/v1/message/${'a'.repeat(500)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  [
    'a GET with a broken JSON body',
    (f) =>
      `GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${f.main.traffic}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 6\r\n\r\n{"a":1`,
  ],
  ['a path escaping the docs folder', () => 'GET /docs/static/../../../package.json HTTP/1.1\r\nHost: x\r\n\r\n'],
  [
    'an encoded path escaping the docs folder',
    () => 'GET /docs/static/..%2f..%2f..%2fpackage.json HTTP/1.1\r\nHost: x\r\n\r\n',
  ],
  ['an absolute URL', () => 'GET http://evil.example/api/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['an asterisk', () => 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
];

const expectErrorBody = (body: unknown, status: number, text: string) => {
  expect(body, text).toMatchObject({ error: { code: expect.any(Number), msg: expect.any(String) } });
  expect(Math.floor((body as { error: { code: number } }).error.code / 10), text).toBe(status);
};

const ENV = {
  // 0 switches both limiters off: the fuzzer sends thousands of requests, many with bad tokens.
  HERALD_RATE_LIMIT: '0',
  HERALD_AUTH_FAILURE_LIMIT: '0',
  HERALD_BODY_LIMIT: String(BODY_LIMIT),
  // Serves (and lists) the short-link route too.
  HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s',
  HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
};

/** Herald's own document, read once from a running Herald so that the operations can name the tests. */
async function openApiDocument(): Promise<Schema> {
  const t = await startTestHerald('pglite', { env: ENV });
  try {
    return (await t.call('GET', '/openapi.json')).body;
  } finally {
    await t.close();
  }
}
const DOC = await openApiDocument();
const OPERATIONS = operations(DOC);

describe.each(ENGINES)('fuzzing every operation of /openapi.json (%s)', (engine) => {
  let t: TestHerald;
  let f: Fixtures;

  beforeAll(async () => {
    t = await startTestHerald(engine, { env: ENV });
    const main = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
      ],
      balance: 1000,
    });
    const other = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const blockedAccount = await t.createAccount();
    await t.admin('PATCH', `/admin/v1/accounts/${blockedAccount.id}`, { status: 'blocked' });
    const victim = await t.createAccount();
    const token = await t.admin('POST', `/admin/v1/accounts/${victim.id}/tokens`, { type: 'traffic' });
    const sent = await t.call('POST', '/api/v1/message', {
      token: main.traffic,
      body: [message('SMS'), message('FLASHCALL')],
    });
    const tc = await t.call('POST', '/api/v1/traffic-centers', { token: main.system, body: { name: 'Fuzz center' } });
    const rule = await t.call('POST', '/api/v1/inbound-rules', {
      token: main.system,
      body: { trafficCenterId: tc.body.id },
    });
    const senderName = await t.call('POST', '/api/v1/sender-names', {
      token: main.system,
      body: { channelType: 'SMS', name: 'FuzzName' },
    });
    const templates = await t.call('GET', '/api/v1/templates', { token: main.system });
    const tariff = await t.admin('POST', '/admin/v1/tariffs', {
      channelType: 'SMS',
      prefix: '7916',
      price: 0.5,
      currency: 'RUB',
    });
    for (const reply of [token, tc, rule, senderName, tariff])
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(sent.body.errors).toBe(false);
    const messageUuid = sent.body.items[0].messageUuid as string;
    f = {
      main,
      other,
      blocked: blockedAccount.traffic,
      messageUuid,
      trafficCenterId: tc.body.id,
      ids: [
        ...[
          main.id,
          other.id,
          victim.id,
          tc.body.id,
          rule.body.id,
          senderName.body.id,
          tariff.body.id,
          templates.body.items[0].id,
        ].map(String),
        token.body.id,
        messageUuid,
        sent.body.items[1].messageUuid,
      ],
    };
  });
  afterAll(async () => t?.close());
  // A valid PATCH may block the main account; every operation starts with it active, to get past authentication.
  beforeEach(async () => {
    await t.admin('PATCH', `/admin/v1/accounts/${f.main.id}`, { status: 'active' });
  });

  it('lists the whole API, client and operator', () => {
    const listed = OPERATIONS.map((op) => `${op.method} ${op.path}`);
    expect(listed.length).toBeGreaterThan(50);
    for (const op of [
      'POST /api/v1/message',
      'GET /admin/v1/accounts',
      'POST /api/v1/flashcall-conversion',
      'GET /s/{code}',
      'GET /healthz',
    ]) {
      expect(listed).toContain(op);
    }
  });

  it.each(OPERATIONS.map((op) => [`${op.method} ${op.path}`, op] as const))('%s', async (_name, op) => {
    await fuzz(requestFor(op, DOC, f), async (request) => expectSafe(request, await send(t, request)));
  });

  it('answers any method, path and token, listed or not, without a 5xx', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'api',
        'v1',
        'admin',
        'message',
        'accounts',
        'tokens',
        'templates',
        'callbacks',
        's',
        'webhooks',
        'docs',
        'static',
        'openapi.json',
        'metrics',
        '%2e%2e',
        '%00',
        '',
      ),
      pathValue(f),
    );
    const requests = fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        segments: fc.array(segment, { minLength: 1, maxLength: 6 }),
        authorization: fc.boolean().chain((admin) => authFor(admin, f)),
        body: fc.option(
          fc.oneof(
            rawText,
            hostile.map((v) => JSON.stringify(v)),
          ),
          { nil: undefined },
        ),
      })
      .map(({ method, segments, authorization, body }): FuzzRequest => ({
        method,
        url: `/${segments.join('/')}`,
        headers:
          authorization === undefined
            ? { 'content-type': 'application/json' }
            : { authorization, 'content-type': 'application/json' },
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      }));
    await fuzz(requests, async (request) => expectSafe(request, await send(t, request)));
  });

  it('refuses a body over the limit with 413 4130, declared or streamed, and reads one at the limit', async () => {
    const tooLarge = { error: { code: 4130, msg: `Request body is larger than ${BODY_LIMIT} bytes` } };
    const json = { 'content-type': 'application/json' };
    const over = Buffer.from(JSON.stringify([message('SMS', { content: 'x'.repeat(BODY_LIMIT) })]));
    const sent = await t.call('POST', '/api/v1/message', { token: f.main.traffic, rawBody: over, headers: json });
    expect(sent.status).toBe(413);
    expect(sent.body).toEqual(tooLarge);
    // Another route reads no more than its own largest valid body (test/http/bodyLimits.test.ts).
    const admin = await t.call('POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      rawBody: over,
      headers: json,
    });
    expect(admin.body).toEqual({ error: { code: 4130, msg: 'Request body is larger than 3072 bytes' } });

    const head =
      `POST /api/v1/message HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${f.main.traffic}\r\n` +
      `Content-Type: application/json\r\n`;
    const declared = await rawRequest(t.url, `${head}Content-Length: ${BODY_LIMIT + 1}\r\n\r\n`);
    expect(declared.body, declared.text).toEqual(tooLarge);
    const chunk = `${(32 * 1024).toString(16)}\r\n${'x'.repeat(32 * 1024)}\r\n`;
    const streamed = await rawRequest(t.url, `${head}Transfer-Encoding: chunked\r\n\r\n${chunk.repeat(5)}0\r\n\r\n`);
    expect(streamed.body, streamed.text).toEqual(tooLarge);

    const frame = JSON.stringify([message('SMS', { content: '' })]);
    const atLimit = frame.replace('"content":""', `"content":"${'x'.repeat(BODY_LIMIT - frame.length)}"`);
    expect(Buffer.byteLength(atLimit)).toBe(BODY_LIMIT);
    const read = await t.call('POST', '/api/v1/message', {
      token: f.main.traffic,
      rawBody: Buffer.from(atLimit),
      headers: json,
    });
    expect([200, 422]).toContain(read.status);
  });

  it('refuses a header block over 16 KiB with 431 and keeps serving', async () => {
    const reply = await rawRequest(
      t.url,
      `GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${f.main.traffic}\r\n` +
        `X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(reply.status, reply.text).toBe(431);
    expect(reply.body).toEqual({ error: { code: 4310, msg: 'Request headers are larger than 16384 bytes' } });
    const many = Array.from({ length: 200 }, (_, i) => `X-H${i}: ${'v'.repeat(100)}\r\n`).join('');
    expect((await rawRequest(t.url, `GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n${many}\r\n`)).status).toBe(431);
    expect((await t.call('GET', '/api/v1/balance', { token: f.main.traffic })).status).toBe(200);
  });

  it.each(RAW_REQUESTS)('answers a raw request with %s in the error format and keeps serving', async (_name, build) => {
    const reply = await rawRequest(t.url, build(f));
    expect(reply.status, reply.text).toBeGreaterThanOrEqual(200);
    expect(reply.status, reply.text).toBeLessThan(500);
    if (reply.status >= 400) expectErrorBody(reply.body, reply.status, reply.text);
    expect(reply.text).not.toContain('devDependencies');
    expect((await t.call('GET', '/api/v1/ping')).status).toBe(200);
  });
});
