import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { ADMIN_TOKEN, keyIdOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

interface Operation {
  operationId: string;
  security?: Record<string, unknown[]>[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, unknown>;
}

type Doc = { paths: Record<string, Record<string, Operation>> };

/**
 * Every operation of /openapi.json with a request body has an example (swagger-ui at /docs would otherwise make one
 * up from the schema, "string" values the server refuses), and every example, sent as it stands to a running
 * Herald, gets an answer the operation documents as a success: an example a client copies works. The account has
 * what the examples name (the sender names `Herald` on SMS and VIBER, `Lavka` on SMS, the user the sign-in example
 * names); an id the server makes (in a path, or a body's reference to another object) is the test's, made fresh
 * for each example.
 */
describe.each(ENGINES)('the request examples of /openapi.json are accepted (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let verify: string;
  let doc: Doc;
  beforeAll(async () => {
    // With the simulated carriers of the demo: the connectors a route example names.
    t = await startTestHerald(engine, { delivery: { delayMs: 5 } });
    account = await t.createAccount({
      senderNames: [
        ['SMS', 'Herald'],
        ['VIBER', 'Herald'],
        ['SMS', 'Lavka'],
      ],
    });
    verify = (await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' })).body.token;
    doc = (await t.call('GET', '/openapi.json')).body as Doc;
    const session = exampleOf('post', '/app/v1/session') as { login: string; password: string };
    await admin('POST', `/admin/v1/accounts/${account.id}/users`, session);
  });
  afterAll(async () => t?.close());

  /** The first request example of an operation. */
  const exampleOf = (method: string, path: string): unknown => {
    const media = doc.paths[path]![method]!.requestBody!.content['application/json']!;
    return media.example ?? Object.values(media.examples ?? {})[0]!.value;
  };
  /** The body of a 2xx answer: the object a set-up request made. */
  const made = async (request: Promise<{ status: number; body: any }>): Promise<any> => {
    const reply = await request;
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    return reply.body;
  };
  let serial = 0;
  type Send = (method: string, path: string, body: unknown) => Promise<any>;
  const admin: Send = (method, path, body) => made(t.admin(method, path, body));
  const system: Send = (method, path, body) => made(t.call(method, path, { token: account.system, body }));
  const traffic: Send = (method, path, body) => made(t.call(method, path, { token: account.traffic, body }));
  /** A fresh object of the kind a collection's create example makes: that example, sent again. */
  const again = (send: Send, path: string) => send('POST', path, exampleOf('post', path));

  /** The value of a path parameter, by the path up to it: the test's account, or an object made for the example. */
  const pathValues: Record<string, () => Promise<string | number>> = {
    '/admin/v1/accounts/{id}': async () => account.id,
    '/admin/v1/accounts/{id}/users/{userId}': async () => {
      const user = { login: `user${++serial}@lavka.example`, password: 'пароль-для-проверки' };
      return (await admin('POST', `/admin/v1/accounts/${account.id}/users`, user)).id;
    },
    '/admin/v1/accounts/{id}/inbound-numbers/{number}': async () => {
      const number = { channelType: 'SMS', number: String(79161250000 + ++serial) };
      return (await admin('POST', `/admin/v1/accounts/${account.id}/inbound-numbers`, number)).number;
    },
    // A bot: the example's token is its token at the simulated Telegram, as a real bot's is at Telegram.
    '/admin/v1/sender-names/{id}': async () => {
      const name = `lavka_${++serial}_bot`;
      const { botToken } = exampleOf('patch', '/admin/v1/sender-names/{id}') as { botToken: string };
      t.simulators!.telegram.bot.addBot(botToken, name);
      return (await admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'TELEGRAM', name }))
        .id;
    },
    '/admin/v1/templates/{id}': async () => (await again(system, '/api/v1/templates')).id,
    '/admin/v1/routes/{id}': async () => (await again(admin, '/admin/v1/routes')).id,
    '/api/v1/dispatch/{id}': async () => (await again(traffic, '/api/v1/dispatch')).dispatchId,
    '/api/v1/templates/{id}': async () => (await again(system, '/api/v1/templates')).id,
    '/api/v1/verifiers/{gatewayId}': async () => (await again(system, '/api/v1/verifiers')).gatewayId,
    '/api/v1/traffic-centers/{id}': async () => (await again(system, '/api/v1/traffic-centers')).id,
    '/api/v1/inbound-rules/{id}': async () =>
      (await system('POST', '/api/v1/inbound-rules', await withReferences(exampleOf('post', '/api/v1/inbound-rules'))))
        .id,
  };
  /** The value of a body field naming another object by its id, made for the example as a path's are. */
  const references: Record<string, () => Promise<unknown>> = {
    accountId: async () => (await admin('POST', '/admin/v1/accounts', { name: `ИП Смирнова ${++serial}` })).id,
    gatewayId: async () => (await again(system, '/api/v1/verifiers')).gatewayId,
    ids: async () => Promise.all([1, 2].map(async () => (await pathValues['/admin/v1/routes/{id}']!()) as number)),
    keyId: async () => keyIdOf(account.traffic),
    // The console's sign-in: the server's own HERALD_ADMIN_TOKEN, which no example can know.
    token: async () => ADMIN_TOKEN,
    trafficCenterId: async () => (await again(system, '/api/v1/traffic-centers')).id,
  };
  const withReferences = async (body: unknown): Promise<unknown> => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
    const filled: Record<string, unknown> = { ...body };
    for (const field of Object.keys(filled)) if (references[field]) filled[field] = await references[field]();
    return filled;
  };

  it('sends each example and gets a documented 2xx', async () => {
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
    for (const { method, path: template, op, body: example } of examples) {
      let path = template;
      for (const [parameter] of template.matchAll(/\{\w+\}/g)) {
        const value = pathValues[template.slice(0, template.indexOf(parameter) + parameter.length)];
        expect(value, `${op.operationId}: an example of a path with parameters needs its values here`).toBeDefined();
        path = path.replace(parameter, encodeURIComponent(String(await value!())));
      }
      const body = await withReferences(example);
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      let reply;
      if (schemes.includes('adminToken')) {
        reply = await t.admin(method, path, body);
      } else {
        // The token of the operation's kind: the first of TOKEN_1 and TOKEN_2 it does not refuse (403 4030).
        for (const token of [account.traffic, account.system, verify]) {
          reply = await t.call(method, path, { token, body });
          if (!(reply.status === 403 && reply.body?.error?.code === 4030)) break;
        }
      }
      const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect(success, `${op.operationId}: ${JSON.stringify(reply!.body).slice(0, 300)}`).toContain(
        String(reply!.status),
      );
      if (reply!.body && typeof reply!.body === 'object' && typeof reply!.body.errors === 'boolean')
        expect(reply!.body.errors, `${op.operationId}: ${JSON.stringify(reply!.body)}`).toBe(
          // The example's uuid is no message of the account: item code 404.
          ['messageStop', 'flashcallConversionReport'].includes(op.operationId),
        );
      if (reply!.body && typeof reply!.body === 'object' && typeof reply!.body.errorCount === 'number')
        expect(reply!.body.errors, `${op.operationId}: every row of the example is taken`).toEqual([]);
    }
  });
});
