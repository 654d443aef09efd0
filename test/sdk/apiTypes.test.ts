import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_TYPES_FILE,
  openapiDocument,
  renderApiTypes,
  renderSdkOperations,
  SDK_OPERATIONS_FILE,
} from '../../scripts/openapiTypes.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

describe("the API's types and the SDK's method table (generated from the OpenAPI document)", () => {
  it(`${API_TYPES_FILE} and ${SDK_OPERATIONS_FILE} are up to date with the route schemas`, async () => {
    const document = await openapiDocument();
    for (const [file, fresh] of [
      [API_TYPES_FILE, await renderApiTypes(document)],
      [SDK_OPERATIONS_FILE, await renderSdkOperations(document)],
    ] as const) {
      // toBe would print both 16,000-line files; a stale file is named with the command that fixes it.
      const committed = readFileSync(file, 'utf8');
      expect(committed === fresh, `${file} is stale: run npm run api:types and commit it`).toBe(true);
    }
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
