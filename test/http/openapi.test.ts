import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

describe('OpenAPI document and reference page', () => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald('pglite');
  });
  afterAll(async () => t?.close());

  it('serves /openapi.json generated from the route schemas', async () => {
    const reply = await t.call('GET', '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    const paths = Object.keys(reply.body.paths);
    for (const path of [
      '/api/v1/ping',
      '/api/v1/message',
      '/api/v1/balance',
      '/admin/v1/accounts',
      '/admin/v1/accounts/{id}/sender-names',
    ]) {
      expect(paths).toContain(path);
    }
    const send = reply.body.paths['/api/v1/message'].post;
    expect(send.requestBody.content['application/json'].schema.maxItems).toBe(1000);
    expect(send.responses['200']).toBeDefined();
    expect(send.responses['422']).toBeDefined();
    expect(JSON.stringify(send.requestBody)).toContain('channelType');
  });

  it('has no default in the body of a PATCH or PUT: an update changes only the fields given (DESIGN 12)', async () => {
    // Ajv fills a schema's defaults into the body before the handler runs (useDefaults): in an update, a field
    // left out would be set to its default.
    const doc = (await t.call('GET', '/openapi.json')).body;
    const defaultsIn = (schema: unknown, at: string): string[] => {
      if (Array.isArray(schema)) return schema.flatMap((s, i) => defaultsIn(s, `${at}[${i}]`));
      if (typeof schema !== 'object' || schema === null) return [];
      return Object.entries(schema).flatMap(([key, value]) => {
        if (key === 'default') return [at];
        // Under `properties` the keys are field names, whatever they are called.
        if (key === 'properties')
          return Object.entries(value as object).flatMap(([name, s]) => defaultsIn(s, `${at}.${name}`));
        if (key === '$ref') return defaultsIn(resolve(value as string), at);
        return defaultsIn(value, at);
      });
    };
    const resolve = (ref: string): unknown =>
      ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<any>((node, part) => node?.[part], doc);
    const updates = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, operations]) =>
      ['patch', 'put']
        .filter((method) => operations[method])
        .map((method) => ({ method, path, op: operations[method] })),
    );
    expect(updates.map((u) => `${u.method} ${u.path}`)).toContain('patch /api/v1/verifiers/{gatewayId}');
    const found = updates.flatMap((u) => defaultsIn(u.op.requestBody ?? {}, `${u.method} ${u.path}`));
    expect(found).toEqual([]);
  });

  it('serves the reference page at /docs', async () => {
    const reply = await t.call('GET', '/docs/');
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toContain('<html');
  });
});
