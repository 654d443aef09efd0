import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { SENDER } from '../messages/messageFixtures.js';

/** VK, then SMS when VK is not delivered; both texts with placeholders. */
const CASCADE = [
  { channelType: 'VK', senderName: 'club1', content: 'Hi {name}', condition: 'not_delivered' },
  { channelType: 'SMS', senderName: SENDER, content: { text: 'Code {code} for {name}' } },
];
/** Receipts come this long after a submit, on the test clock: a test moves the clock past it. */
const RECEIPT_DELAY_MS = 10_000;

/**
 * Dispatches of cascades (DESIGN 15 `cascade`) through the SMSC simulator (SMS) and the provider simulator (VK). The
 * simulators answer receipts only when the test moves the clock, so that a test acts between a step's submit and
 * its outcome; the last digit of a destination decides it (0 delivered, 7 undelivered).
 */
describe.each(ENGINES)('dispatches of cascades (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: RECEIPT_DELAY_MS } });
    account = await t.createAccount({ channels: { VK: true }, senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const api = (method: string, path: string, body?: unknown) =>
    t.call(method, `/api/v1/dispatch${path}`, { token: account.traffic, ...(body !== undefined ? { body } : {}) });
  const create = async (): Promise<string> => {
    const reply = await api('POST', '', { dispatchName: 'Cascade promo', cascade: CASCADE });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.dispatchId;
  };
  const people = (prefix: string, digits: string[]) =>
    digits.map((last, i) => ({ destination: `${prefix}${i}${last}`, substitutions: { name: `P${i}`, code: 100 + i } }));
  const get = async (id: string) => (await api('GET', `/${id}`)).body;
  const sms = (prefix: string) => t.simulators!.smsc.submissions.filter((s) => s.destination.startsWith(prefix));
  const vk = (prefix: string) =>
    t.simulators!.providers.requests.filter((r) => r.channel === 'VK' && r.destination.startsWith(prefix));
  /** Moves the clock past the receipts of what was submitted (and recorded as sent: wait for that first). */
  const receipts = () => t.clock.advance(RECEIPT_DELAY_MS + 1000);
  const started = async (prefix: string, digits: string[]) => {
    const id = await create();
    const added = await api('POST', `/${id}/messages`, people(prefix, digits));
    expect(
      added.body.every((item: { messageUuid?: string }) => item.messageUuid),
      JSON.stringify(added.body),
    ).toBe(true);
    expect((await api('POST', `/${id}/start`)).status).toBe(200);
    await untilWritten(t.herald, async () => (await get(id)).messages.sent === digits.length);
    return id;
  };

  it('refuses a cascade that could not be one, and steps beside channelType, senderName or content', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const reply = await api('POST', '', { dispatchName: 'x', ...body });
      expect(reply.status).toBe(422);
      return reply.body.error;
    };
    expect(await refused({ cascade: CASCADE, channelType: 'SMS' })).toMatchObject({ msg: 'Invalid channelType' });
    expect(
      await refused({ cascade: [{ ...CASCADE[0], condition: 'not_read', channelType: 'SMS' }, CASCADE[1]] }),
    ).toMatchObject({ step: 0 });
    expect(await refused({ cascade: [CASCADE[0]] })).toMatchObject({ step: 0 });
  });

  it('creates a cascade per destination, step texts substituted; counters and the list cover every step', async () => {
    const prefix = '791660000';
    const id = await create();
    const added = await api('POST', `/${id}/messages`, [
      ...people(prefix, ['0', '7', '7']),
      // The second step's placeholder has no value: no cascade for it.
      { destination: '79166000990', substitutions: { name: 'x' } },
    ]);
    expect(added.body[3]).toEqual({
      destination: '79166000990',
      errorCode: 7401,
      msg: 'Missing substitution code',
    });
    const dispatch = await get(id);
    expect(dispatch).toMatchObject({
      channelType: 'VK',
      source: 'club1',
      message: 'Hi {name}',
      cascade: CASCADE,
      messages: { total: 3, sending: 3 },
    });
    expect((await api('POST', `/${id}/start`)).status).toBe(200);
    await untilWritten(t.herald, async () => (await get(id)).messages.sent === 3);
    expect(
      vk(prefix)
        .map((r) => JSON.stringify(r.body))
        .sort(),
    ).toEqual(['Hi P0', 'Hi P1', 'Hi P2'].map((text) => expect.stringContaining(text)));
    receipts();
    // The two VK steps not delivered lead to their SMS steps, created with the dispatch's id.
    await untilWritten(t.herald, async () => {
      const m = (await get(id)).messages;
      return m.undelivered === 2 && m.sent === 2;
    });
    expect(
      sms(prefix)
        .map((s) => s.text)
        .sort(),
    ).toEqual(['Code 101 for P1', 'Code 102 for P2']);
    receipts();
    await untilWritten(t.herald, async () => (await get(id)).status === 'done');
    expect((await get(id)).messages).toEqual({
      total: 5,
      sending: 0,
      sent: 0,
      delivered: 1,
      undelivered: 4,
      unsent: 0,
    });
    const listed = await t.call('GET', `/api/v1/message?dispatch_id=${id}`, { token: account.traffic });
    expect(listed.body.total).toBe(5);
    expect(
      listed.body.items
        .map((m: { channelType: string; cascadeStep: number; dispatchId: string }) =>
          [m.channelType, m.cascadeStep, m.dispatchId === id].join(),
        )
        .sort(),
    ).toEqual(['SMS,2,true', 'SMS,2,true', 'VK,1,true', 'VK,1,true', 'VK,1,true']);
  });

  it('awaits while a cascade waits for a read: its next step may still come', async () => {
    const prefix = '791660030';
    const reply = await api('POST', '', {
      dispatchName: 'Read or SMS',
      cascade: [{ ...CASCADE[0], condition: 'not_read', ttl: 60 }, CASCADE[1]],
    });
    const id = reply.body.dispatchId;
    // Last digit 6: the VK message is delivered and never read.
    await api('POST', `/${id}/messages`, people(prefix, ['6']));
    await api('POST', `/${id}/start`);
    await untilWritten(t.herald, async () => (await get(id)).messages.sent === 1);
    receipts();
    await untilWritten(t.herald, async () => (await get(id)).messages.delivered === 1);
    // Every message so far is final, but the cascade runs until the read or the end of the VK step's lifetime.
    expect(await get(id)).toMatchObject({ status: 'awaiting', messages: { total: 1, sending: 0, sent: 0 } });
  });

  it('a stop applies to later steps: a step that fails after it leads nowhere', async () => {
    const prefix = '791660010';
    const id = await started(prefix, ['7', '7', '7']);
    expect((await api('POST', `/${id}/stop`)).status).toBe(200);
    receipts();
    await untilWritten(t.herald, async () => (await get(id)).messages.undelivered === 3);
    // A message sent through the same pipeline afterwards goes: the SMS steps would have gone before it.
    await t.send(account.traffic, [
      { channelType: 'SMS', senderName: SENDER, content: 'marker', destination: '79166099990' },
    ]);
    await waitFor(() => sms('79166099990').length === 1);
    expect(sms(prefix)).toHaveLength(0);
    expect(await get(id)).toMatchObject({ status: 'stopped', messages: { total: 3, undelivered: 3 } });
    const states = await t.testDb.db.query<{ state: string }>('SELECT state FROM cascades WHERE dispatch_id = $1', [
      id,
    ]);
    expect(states.map((s) => s.state)).toEqual(['stopped', 'stopped', 'stopped']);
  });

  it('a pause holds later steps created meanwhile; the resume sends them, each once', async () => {
    const prefix = '791660020';
    const id = await started(prefix, ['7', '7', '0']);
    expect((await api('POST', `/${id}/pause`)).status).toBe(200);
    receipts();
    // Two VK steps fail while paused: their SMS steps exist, held.
    await untilWritten(t.herald, async () => (await get(id)).messages.total === 5);
    await t.send(account.traffic, [
      { channelType: 'SMS', senderName: SENDER, content: 'marker', destination: '79166099980' },
    ]);
    await waitFor(() => sms('79166099980').length === 1);
    expect(sms(prefix)).toHaveLength(0);
    expect(await get(id)).toMatchObject({ status: 'paused', messages: { total: 5, sending: 2 } });

    expect((await api('POST', `/${id}/resume`)).status).toBe(200);
    await untilWritten(t.herald, async () => (await get(id)).messages.sent === 2);
    receipts();
    await untilWritten(t.herald, async () => (await get(id)).status === 'done');
    expect(new Set(sms(prefix).map((s) => s.destination)).size).toBe(2);
    expect((await get(id)).messages).toMatchObject({ total: 5, delivered: 1, undelivered: 4 });
  });
});
