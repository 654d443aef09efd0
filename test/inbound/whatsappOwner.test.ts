import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whatsappNumberOf } from '../../src/senderNames/senderNameSql.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

describe('the number a WhatsApp sender name stands for (DESIGN 12)', () => {
  it.each([
    ['15550001111', '15550001111'],
    ['+15550001111', '15550001111'],
    ['Promo 1-555-000-1111', 'Promo 1-555-000-1111'],
    ['+1 555 000 1111', '+1 555 000 1111'],
    ['Shop', 'Shop'],
    ['015550001111', '015550001111'],
    ['+1234567890123456', '+1234567890123456'],
  ])('%s -> %s', (name, number) => {
    expect(whatsappNumberOf(name)).toBe(number);
  });
});

describe.each(ENGINES)('one owner per WhatsApp number, matched exactly (DESIGN 12) (%s)', (engine) => {
  let t: TestHerald;
  const whatsapp = (names: string[]) =>
    t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: names.map((n) => ['WHATSAPP', n] as const),
      openWhatsapp: false,
    });
  const inbound = (senderName: string, text: string) =>
    call(t.simulators!.providers.url, 'POST', '/sim/v1/inbound', {
      body: { channelType: 'WHATSAPP', from: '79161230000', senderName, text },
    });
  const inboundTexts = async (account: TestAccount): Promise<string[]> =>
    (await t.call('GET', '/api/v1/message?direction=inbound', { token: account.traffic })).body.items.map(
      (m: { content: { text: string } }) => m.content.text,
    );
  const unroutedTexts = async (): Promise<string[]> =>
    (await t.admin('GET', '/admin/v1/inbounds/unrouted')).body.items.map((i: { text: string }) => i.text);

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
  });
  afterAll(async () => t?.close());

  it("refuses another account's number, in either E.164 spelling; takes look-alikes and the owner's own", async () => {
    const owner = await whatsapp(['15550002222']);
    const other = await whatsapp([]);
    const conflict = (name: string) => ({
      status: 409,
      body: {
        error: {
          code: 4091,
          msg:
            `WhatsApp sender name "${name}" is the number of account ${owner.id} (approved as "15550002222"); ` +
            `a WhatsApp number has one owner`,
        },
      },
    });
    // A client may ask (Pending); the operator cannot approve it.
    const asked = await t.call('POST', '/api/v1/sender-names', {
      token: other.system,
      body: { channelType: 'WHATSAPP', name: '+15550002222' },
    });
    expect(asked.status).toBe(201);
    const approve = await t.admin('POST', `/admin/v1/sender-names/${asked.body.id}/approve`, {});
    expect({ status: approve.status, body: approve.body }).toEqual(conflict('+15550002222'));
    expect((await t.call('GET', `/api/v1/sender-names/${asked.body.id}`, { token: other.system })).body.status).toBe(
      'Pending',
    );
    const direct = await t.admin('POST', `/admin/v1/accounts/${other.id}/sender-names`, {
      channelType: 'WHATSAPP',
      name: '15550002222',
    });
    expect({ status: direct.status, body: direct.body }).toEqual(conflict('15550002222'));

    // Other names are other numbers; the owner may spell its own number both ways; other channels are not numbers.
    expect(
      (
        await t.admin('POST', `/admin/v1/accounts/${other.id}/sender-names`, {
          channelType: 'WHATSAPP',
          name: 'Promo 1-555-000-2222',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await t.admin('POST', `/admin/v1/accounts/${owner.id}/sender-names`, {
          channelType: 'WHATSAPP',
          name: '+15550002222',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await t.admin('POST', `/admin/v1/accounts/${other.id}/sender-names`, {
          channelType: 'VIBER',
          name: '15550002222',
        })
      ).status,
    ).toBe(201);

    // Once the owner gives the number up, another account can have it.
    const names = (await t.call('GET', '/api/v1/sender-names?channelType=WHATSAPP', { token: owner.system })).body
      .items;
    for (const name of names) await t.call('DELETE', `/api/v1/sender-names/${name.id}`, { token: owner.system });
    expect((await t.admin('POST', `/admin/v1/sender-names/${asked.body.id}/approve`, {})).status).toBe(200);
  });

  it('routes an inbound to the one name that is exactly its number, never to a look-alike', async () => {
    const owner = await whatsapp(['+15550003333']);
    const lookalike = await whatsapp(['1-555-000-3333', '15550003333 ']);
    // Meta writes the number without its '+': the same E.164 number.
    await inbound('15550003333', 'to the owner');
    await waitFor(async () => (await inboundTexts(owner)).includes('to the owner'));
    await inbound('1 555 000 3333', 'to no one');
    await waitFor(async () => (await unroutedTexts()).includes('to no one'));
    expect(await inboundTexts(lookalike)).toEqual([]);
    expect(await inboundTexts(owner)).toEqual(['to the owner']);
  });

  it("takes the connector's phone number id when no name is the number written to, and the number first", async () => {
    const byId = await whatsapp(['100000001']);
    const byName = await whatsapp(['Named Shop']);
    await inbound('Nobody Here', 'to the phone number id');
    await waitFor(async () => (await inboundTexts(byId)).includes('to the phone number id'));
    await inbound('Named Shop', 'to the name');
    await waitFor(async () => (await inboundTexts(byName)).includes('to the name'));
    expect(await inboundTexts(byId)).toEqual(['to the phone number id']);
  });
});
