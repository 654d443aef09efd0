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

  it('serves the reference page at /docs', async () => {
    const reply = await t.call('GET', '/docs/');
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toContain('<html');
  });
});
