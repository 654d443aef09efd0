import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_FILE, openapiDocument, renderApiTypes } from '../../scripts/openapiTypes.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

describe("the web pages' API types (generated from the OpenAPI document)", () => {
  it(`${API_TYPES_FILE} is up to date with the route schemas (else: npm run web:types)`, async () => {
    const committed = readFileSync(API_TYPES_FILE, 'utf8');
    // toBe would print both 4,000-line files; a stale file is named with the command that fixes it.
    const fresh = await renderApiTypes();
    expect(committed === fresh, `${API_TYPES_FILE} is stale: run npm run web:types and commit it`).toBe(true);
  });

  describe('the document they are generated from', () => {
    let t: TestHerald;
    beforeAll(async () => {
      t = await startTestHerald('pglite');
    });
    afterAll(async () => t?.close());

    // The script builds the document without a database; a route whose schema depended on more of the context
    // than registration is given would make the two differ.
    it('is the one a running Herald serves at /openapi.json', async () => {
      const served = (await t.call('GET', '/openapi.json')).body;
      const built = JSON.parse(JSON.stringify(await openapiDocument()));
      expect(built.components).toEqual(served.components);
      // The script uses the default configuration, where short links (GET /s/{code}) and unsubscribe links
      // (/s/u/{code}) are on; the test Herald's are off. Every other operation is the same.
      for (const path of Object.keys(served.paths)) expect(built.paths[path], path).toEqual(served.paths[path]);
      expect(Object.keys(built.paths).filter((path) => !(path in served.paths))).toEqual(['/s/{code}', '/s/u/{code}']);
    });
  });
});
