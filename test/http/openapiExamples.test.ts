import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

interface Operation {
  operationId: string;
  security?: Record<string, unknown[]>[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, unknown>;
}

/**
 * Every request body example of /openapi.json, sent as it stands to a running Herald, gets an answer the operation
 * documents as a success: an example a client copies works. The account has what the examples name (the sender
 * name `Herald` on SMS and VIBER).
 */
describe.each(ENGINES)('the request examples of /openapi.json are accepted (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      senderNames: [
        ['SMS', 'Herald'],
        ['VIBER', 'Herald'],
      ],
    });
  });
  afterAll(async () => t?.close());

  it('sends each example and gets a documented 2xx', async () => {
    const doc = (await t.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const examples = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) => {
        const media = op.requestBody?.content['application/json'];
        if (!media) return [];
        const values = [
          ...(media.example === undefined ? [] : [media.example]),
          ...Object.values(media.examples ?? {}).map((e) => e.value),
        ];
        return values.map((body) => ({ method: method.toUpperCase(), path, op, body }));
      }),
    );
    // Every operation with a request body has an example: swagger-ui would otherwise make one up from the schema
    // ("string" values) that the server refuses (issue 34).
    const withoutExample = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => {
          if (!op.requestBody) return false;
          return !Object.values(op.requestBody.content).some(
            (media) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0,
          );
        })
        .map(([method, op]) => `${op.operationId} (${method.toUpperCase()} ${path})`),
    );
    expect(withoutExample, 'operations with a request body and no example').toEqual([]);
    // The examples of the main client operations, at least.
    expect(examples.map((e) => e.op.operationId)).toEqual(
      expect.arrayContaining([
        'messageSend',
        'cascadeSend',
        'messageStop',
        'senderNameCreate',
        'adminAccountCreate',
        // The operator's money and account operations, tried from /docs (issue 34).
        'adminBalanceAdjust',
        'adminTariffCreate',
        'adminTokenCreate',
        'adminUserCreate',
        'adminInboundNumberAssign',
        'apiKeyCreate',
      ]),
    );
    for (const { method, path: template, op, body } of examples) {
      // An account's operations act on the test's account.
      const path = template.replace(/^\/admin\/v1\/accounts\/\{id\}/, `/admin/v1/accounts/${account.id}`);
      expect(path, `${op.operationId}: an example of a path with parameters needs its values here`).not.toMatch(/\{/);
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      let reply;
      if (schemes.includes('adminToken')) {
        reply = await t.admin(method, path, body);
      } else {
        // The token of the operation's kind: the first of TOKEN_1 and TOKEN_2 it does not refuse (403 4030).
        for (const token of [account.traffic, account.system]) {
          reply = await t.call(method, path, { token, body });
          if (!(reply.status === 403 && reply.body?.error?.code === 4030)) break;
        }
      }
      const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect(success, `${op.operationId}: ${JSON.stringify(reply!.body).slice(0, 300)}`).toContain(
        String(reply!.status),
      );
      if (reply!.body && typeof reply!.body === 'object' && 'errors' in reply!.body)
        expect(reply!.body.errors, `${op.operationId}: ${JSON.stringify(reply!.body)}`).toBe(
          op.operationId === 'messageStop', // the example's uuid is no message of the account: item code 404
        );
    }
  });
});
