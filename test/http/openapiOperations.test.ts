import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_ID, OPERATION_IDS, OPERATION_VERBS } from '../../src/http/operationIds.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

interface Operation {
  operationId?: string;
  security?: Record<string, unknown[]>[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * What generated clients need of /openapi.json (docs/api.md): each operation named as a client calls it, with its
 * authentication, its answers and its errors in the shared error body. A route added later without these fails here
 * with a message that says what to add.
 */
describe('every operation of /openapi.json is fit for a generated client', () => {
  let t: TestHerald;
  let doc: { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>> };
  let operations: { key: string; path: string; op: Operation }[];
  beforeAll(async () => {
    t = await startTestHerald('pglite');
    doc = (await t.call('GET', '/openapi.json')).body;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({
        key: `${method.toUpperCase()} ${path}`,
        path,
        op: item[method]!,
      })),
    );
  });
  afterAll(async () => t?.close());

  it('has an operationId on every operation, unique, in the scheme [admin]<Entity><Verb>', () => {
    expect(operations.length).toBeGreaterThan(100);
    const missing = operations.filter((o) => !o.op.operationId).map((o) => `  '${o.key}': '<entity><Verb>',`);
    expect(
      missing,
      `add to OPERATION_IDS in src/http/operationIds.ts (scheme: docs/api.md):\n${missing.join('\n')}`,
    ).toEqual([]);
    const ids = operations.map((o) => o.op.operationId!);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      'operationIds used twice',
    ).toEqual([]);
    const offScheme = operations
      .filter((o) => !OPERATION_ID.test(o.op.operationId!))
      .map((o) => `${o.key}: ${o.op.operationId}`);
    expect(offScheme, `camelCase, an entity then one of ${OPERATION_VERBS.join(', ')}`).toEqual([]);
    const prefix = operations
      .filter((o) => o.path.startsWith('/admin/') !== o.op.operationId!.startsWith('admin'))
      .map((o) => `${o.key}: ${o.op.operationId}`);
    expect(prefix, 'the operator API (/admin/), and only it, is named admin<Entity><Verb>').toEqual([]);
  });

  it('names the client API as its clients call it', () => {
    const idOf = (key: string) => operations.find((o) => o.key === key)?.op.operationId;
    expect(idOf('POST /api/v1/message')).toBe('messageSend');
    expect(idOf('GET /api/v1/message/{uuid}')).toBe('messageGet');
    expect(idOf('POST /api/v1/message/stop')).toBe('messageStop');
    expect(idOf('POST /api/v1/message/cascade')).toBe('cascadeSend');
    expect(idOf('GET /api/v1/sender-names')).toBe('senderNameList');
    expect(idOf('GET /admin/v1/sender-names')).toBe('adminSenderNameList');
  });

  it('keeps no id for a route that is not served (a stale line in OPERATION_IDS)', () => {
    const served = new Set(operations.map((o) => o.key));
    expect(Object.keys(OPERATION_IDS).filter((key) => !served.has(key))).toEqual([]);
  });

  it('says how every operation authenticates: both token schemes, the operator token, or none', () => {
    const schemes = (op: Operation) => op.security?.map((requirement) => Object.keys(requirement).join('+'));
    const wrong = operations.filter((o) => {
      const used = schemes(o.op);
      if (used === undefined) return true;
      // The pages' sessions (docs/web.md "Sessions") name their cookie beside the token; signing in takes neither.
      if (o.key === 'POST /admin/v1/session') return used.length > 0;
      if (o.path === '/admin/v1/session') return used.join() !== 'adminToken,adminSessionCookie';
      if (o.path.startsWith('/admin/')) return used.join() !== 'adminToken';
      if (o.path === '/app/v1/session' && o.key !== 'POST /app/v1/session')
        return used.join() !== 'basicToken,bearerToken,sessionCookie';
      // A pasted token works on the reference page for every client operation: Bearer beside Basic.
      return used.length > 0 && used.join() !== 'basicToken,bearerToken';
    });
    expect(wrong.map((o) => `${o.key}: ${JSON.stringify(o.op.security)}`)).toEqual([]);
    const open = operations.filter((o) => schemes(o.op)!.length === 0).map((o) => o.key);
    expect(open).toEqual(
      expect.arrayContaining([
        'GET /api/v1/ping',
        'GET /healthz',
        'GET /readyz',
        'POST /app/v1/session',
        'POST /admin/v1/session',
      ]),
    );
    expect(open.filter((key) => key.includes('/api/v1/') && key !== 'GET /api/v1/ping')).toEqual([]);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('answers with a success and at least one 4xx, and every 4xx and 5xx in the shared error body', () => {
    const refsError = (schema: unknown): boolean =>
      JSON.stringify(schema ?? null).includes('"$ref":"#/components/schemas/ErrorBody"');
    const problems = operations.flatMap(({ key, op }) => {
      const statuses = Object.keys(op.responses);
      const found: string[] = [];
      // A 3xx is the success of a short link (redocly.yaml turns off Redocly's 2XX-only rule for it).
      if (!statuses.some((s) => /^[23]/.test(s))) found.push(`${key}: no 2xx or 3xx answer`);
      if (!statuses.some((s) => s.startsWith('4'))) found.push(`${key}: no 4xx answer`);
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        const json = op.responses[status]!.content?.['application/json']?.schema;
        if (!refsError(json)) found.push(`${key}: ${status} is not the shared error body`);
      }
      return found;
    });
    expect(problems).toEqual([]);
  });
});
