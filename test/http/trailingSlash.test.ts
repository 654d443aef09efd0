import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describe.each(ENGINES)('a trailing slash names the same route (DESIGN 12) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('sends, stops and looks up with a trailing slash', async () => {
    const sent = await t.call('POST', '/api/v1/message/', { token: account.traffic, body: [message('VK')] });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
    const uuid = sent.body.items[0].messageUuid as string;
    const one = await t.call('GET', `/api/v1/message/${uuid}/`, { token: account.traffic });
    expect(one.body.messageUuid).toBe(uuid);
    const stopped = await t.call('POST', '/api/v1/message/stop/', { token: account.traffic, body: { uuids: [uuid] } });
    expect(stopped.body).toEqual({ errors: false, items: [{ messageUuid: uuid, code: 200 }] });
    expect((await t.call('GET', '/api/v1/balance/', { token: account.system })).status).toBe(200);
  });

  it('answers every route of the reference alike with and without the slash', async () => {
    const paths = (await t.call('GET', '/openapi.json')).body.paths as Record<string, Record<string, unknown>>;
    let checked = 0;
    for (const [template, operations] of Object.entries(paths)) {
      const path = template.replace(/\{[^}]+\}/g, '1');
      for (const method of METHODS.filter((m) => operations[m] !== undefined)) {
        // Without credentials nothing changes: every route answers what it answers an anonymous caller.
        const body = method === 'get' || method === 'delete' ? undefined : {};
        const plain = await t.call(method.toUpperCase(), path, { body });
        const slashed = await t.call(method.toUpperCase(), `${path}/`, { body });
        expect(String(slashed.body?.error?.msg ?? ''), `${method} ${path}/`).not.toMatch(/^Route not found/);
        const answer = (reply: typeof plain) => [reply.status, reply.body?.error?.code];
        expect(answer(slashed), `${method} ${path}/`).toEqual(answer(plain));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('keeps the reference page at /docs and /docs/', async () => {
    for (const path of ['/docs', '/docs/']) {
      const reply = await t.call('GET', path);
      expect(reply.status).toBe(200);
      expect(String(reply.body)).toContain('<html');
    }
  });
});
