import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { RapportoSimulator } from '../helpers/providers/rapportoSimulator.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';

const VK = {
  login: 'partner',
  password: 'pw',
  id: 'm-1',
  destAddr: '79161600010',
  message: { type: 'VK', data: { text: 'Hello', serviceNumber: 'club1', ttl: 600, ttlUnit: 'SECONDS' } },
};
const viber = (instantContent: unknown) => ({
  ...VK,
  message: { type: 'VIBER', data: { instantContent, serviceNumber: 'Shop', ttl: 30, ttlUnit: 'SECONDS' } },
});
const BUTTON = { text: 'Sale', caption: 'Open', action: 'https://shop.example/sale' };

/** A body with the value at a dotted path replaced (undefined: left out). */
function change(body: object, path: string, value: unknown): object {
  const copy = structuredClone(body) as Record<string, any>;
  const keys = path.split('.');
  const parent = keys.slice(0, -1).reduce((o, k) => o[k], copy);
  if (value === undefined) delete parent[keys.at(-1)!];
  else parent[keys.at(-1)!] = value;
  return copy;
}

describe('the Rapporto REST v6 simulator (profiles/research/vk-ok-viber.md section 2)', () => {
  let sim: RapportoSimulator;
  let receiver: Receiver;
  let n = 0;
  // A fresh id a request, so that the duplicate control answers only where a test repeats one.
  const post = (body: object) => call(sim.url, 'POST', '', { body: 'id' in body ? { ...body, id: `m-${++n}` } : body });

  beforeAll(async () => {
    receiver = await new Receiver().start();
    sim = await new RapportoSimulator({ login: 'partner', password: 'pw', delayMs: 1 }).start();
  });
  afterAll(async () => {
    await sim?.stop();
    await receiver?.stop();
  });

  it.each([
    ['VK', VK],
    ['VIBER text', viber({ type: 'TEXT', data: { text: 'Hi' } })],
    ['VIBER image', viber({ type: 'IMAGE_URL', data: { imageURL: 'https://shop.example/a.png' } })],
    ['VIBER button', viber({ type: 'BUTTON', data: BUTTON })],
    ['VIBER image and button', viber({ type: 'BUTTON', data: { ...BUTTON, imageURL: 'https://shop.example/a.png' } })],
    ['a RU number written with 8', change(VK, 'destAddr', '8-916-160-00-10')],
    ['ttl in minutes by default', change(VK, 'message.data.ttlUnit', undefined)],
    ['ttl 0: the account default', change(VK, 'message.data.ttl', 0)],
  ])('takes %s: {mtNum, id}', async (_, body) => {
    const reply = await post(body);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ mtNum: expect.stringMatching(/^\d+$/), id: `m-${n}` });
  });

  it.each([
    ['no login', change(VK, 'login', undefined), 401, 5],
    ['a wrong password', change(VK, 'password', 'x'), 401, 6],
    ['no serviceNumber', change(VK, 'message.data.serviceNumber', undefined), 400, 7],
    ['a destAddr that is no number', change(VK, 'destAddr', 'club1'), 406, 8],
    ['a destination ending in 8 (outcomes.ts: refused)', change(VK, 'destAddr', '79161600018'), 406, 8],
    ['a type that is not VK or VIBER', change(VK, 'message.type', 'SMS'), 406, 9],
    ['a VK ttl under 60 s', change(VK, 'message.data.ttl', 59), 406, 11],
    ['a ttl over 86400 s', change(VK, 'message.data.ttl', 86_401), 406, 11],
    ['25 hours', change(VK, 'message.data.ttlUnit', 'HOURS'), 406, 11],
    ['an unknown ttlUnit', change(VK, 'message.data.ttlUnit', 'DAYS'), 400, 4],
    ['a VK text over 2000', change(VK, 'message.data.text', 'x'.repeat(2001)), 400, 4],
    ['an empty notifyUrl', { ...VK, notifyUrl: '' }, 400, 4],
    ['a notifyUrl over 2048', { ...VK, notifyUrl: `https://h.example/${'x'.repeat(2031)}` }, 400, 4],
    ['a Viber ttl under 30 s', change(viber({ type: 'TEXT', data: { text: 'x' } }), 'message.data.ttl', 29), 406, 11],
    ['a Viber text over 1000', viber({ type: 'TEXT', data: { text: 'x'.repeat(1001) } }), 400, 4],
    ['TEXT with an image', viber({ type: 'TEXT', data: { text: 'x', imageURL: 'https://a.example/i' } }), 400, 4],
    ['a caption over 30', viber({ type: 'BUTTON', data: { ...BUTTON, caption: 'x'.repeat(31) } }), 400, 4],
    ['an action without its scheme', viber({ type: 'BUTTON', data: { ...BUTTON, action: 'shop.example' } }), 400, 4],
    ['a button without text', viber({ type: 'BUTTON', data: { ...BUTTON, text: undefined } }), 400, 4],
    ['an unknown content type', viber({ type: 'VIDEO', data: { text: 'x' } }), 400, 4],
  ])('refuses %s: HTTP %i, code %i', async (_, body, status, code) => {
    const reply = await post(body);
    expect(reply.status).toBe(status);
    expect(reply.body.error).toEqual({ code, description: expect.any(String) });
  });

  it('answers a repeated id with the first mtNum and sends once; refuses as a test asks, then takes', async () => {
    const first = await call(sim.url, 'POST', '', { body: { ...VK, id: 'same' } });
    const again = await call(sim.url, 'POST', '', { body: { ...VK, id: 'same' } });
    expect(again.body).toEqual(first.body);
    sim.refuse('79161600011', 3);
    sim.refuse('79161600011', 1);
    const to11 = change(VK, 'destAddr', '79161600011');
    expect((await post(to11)).body).toEqual({ error: { code: 3, description: 'Too many connections' } });
    expect((await post(to11)).status).toBe(503);
    expect((await post(to11)).status).toBe(200);
    expect(sim.requestsTo('79161600011').map((r) => r.status)).toEqual([429, 503, 200]);
  });

  it('reports to notifyUrl, one report a request: 2 then 9, 2 only, 5 with the reason, 0 only', async () => {
    const sent = new Map<string, string>();
    for (const [to, type] of [
      ['79161600010', 'VK'],
      ['79161600016', 'VK'],
      ['79161600017', 'VK'],
      ['79161600027', 'VIBER'],
      ['79161600019', 'VK'],
    ] as const) {
      const body = type === 'VK' ? VK : viber({ type: 'TEXT', data: { text: 'Hi' } });
      const reply = await post({ ...change(body, 'destAddr', to), notifyUrl: receiver.url });
      sent.set(to, reply.body.mtNum);
    }
    const reports = (to: string) =>
      receiver.received.filter((r) => r.body.mtNum === sent.get(to)).map((r) => [r.body.status, r.body.errorCode]);
    await waitFor(() => reports('79161600010').length === 2 && receiver.received.length >= 6);
    expect(reports('79161600010')).toEqual([
      [2, '0'],
      [9, '0'],
    ]);
    expect(reports('79161600016')).toEqual([[2, '0']]);
    expect(reports('79161600017')).toEqual([[5, '11']]);
    expect(reports('79161600027')).toEqual([[5, '2']]);
    expect(reports('79161600019')).toEqual([[0, '0']]);
    const read = receiver.received.find((r) => r.body.mtNum === sent.get('79161600010') && r.body.status === 9)!;
    expect(read.body).toEqual({
      id: expect.stringMatching(/^m-/),
      mtNum: sent.get('79161600010'),
      status: 9,
      type: 'VK',
      doneDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0300$/),
      submitDate: expect.stringMatching(/\+0300$/),
      sourceAddr: 'club1',
      destAddr: '79161600010',
      text: 'Hello',
      errorCode: '0',
    });
    expect(read.headers['content-type']).toBe('application/json');
  });
});
