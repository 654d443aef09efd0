import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import { TestClock } from '../helpers/clock.js';
import { submissionsByText } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

describe.each(ENGINES)('delivery under carrier faults and windows (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const statuses = async (ids: string[]) =>
    t.testDb.db.query<{ id: string; status: string; history: { status: string; detail?: string }[] }>(
      `SELECT id, status, history FROM ${messageRows()} WHERE account_id = $1 AND id = ANY($2::uuid[])`,
      [account.id, ids],
    );
  const send = (body: Record<string, unknown>[]): Promise<string[]> => t.send(account.traffic, body);
  const smpp = () => t.herald.connectors.find((c) => c.type === 'smpp') as SmppConnector;

  beforeAll(async () => {
    // Time flows: retries and leases must come due by themselves.
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    await smpp().waitBound(5000);
  });
  afterAll(async () => t?.close());

  it('loses no message when the SMSC drops the connection mid-window', async () => {
    const smsc = t.simulators!.smsc;
    const before = smsc.submitCount;
    const body = Array.from({ length: 2000 }, (_, i) =>
      message('SMS', { destination: `791655${String(i).padStart(4, '0')}0`, content: `drop test ${i}` }),
    );
    const ids = [...(await send(body.slice(0, 1000))), ...(await send(body.slice(1000)))];
    await waitFor(() => smsc.submitCount - before >= 200);
    smsc.dropConnections();
    await untilWritten(t.herald, async () => (await statuses(ids)).every((r) => r.status === 'delivered'), {
      timeoutMs: 20_000,
      describe: async () => JSON.stringify((await statuses(ids)).filter((r) => r.status !== 'delivered').slice(0, 3)),
    });

    // A message in flight when the connection dropped may reach the SMSC twice (its answer was lost); each such
    // duplicate is one Herald retried, and says so in its history.
    const texts = submissionsByText(smsc, 'drop test');
    expect(texts.size).toBe(2000);
    const rows = await statuses(ids);
    const retried = new Set(
      rows.filter((r) => r.history.some((h) => h.detail?.includes('connection closed'))).map((r) => r.id),
    );
    const duplicated = ids.filter((_, i) => (texts.get(`drop test ${i}`) ?? 0) > 1);
    for (const id of duplicated) expect(retried.has(id)).toBe(true);
    // The drop did catch messages in flight (else this test would prove nothing).
    expect(retried.size).toBeGreaterThan(0);
    expect(smpp().state()).toMatchObject({ state: 'bound', available: true });
  });

  it('reconnects after a malformed PDU stops the session from reading', async () => {
    t.simulators!.smsc.sendMalformedPdu();
    await waitFor(() => smpp().state().state !== 'bound');
    await smpp().waitBound(10_000);
    const ids = await send([message('SMS', { destination: '79161239990', content: 'after junk' })]);
    await untilWritten(t.herald, async () => (await statuses(ids))[0]!.status === 'delivered');
  });

  it('holds a message whose window excludes the current hour, then sends it when the window opens', async () => {
    // 09:00 UTC is 12:00 in Moscow: hour 14 opens at 11:00 UTC.
    const ids = await send([message('SMS', { destination: '79161239991', content: 'window test', hours: [14] })]);
    const object = await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.traffic });
    expect(object.body).toMatchObject({ status: 'sending', plannedSendTime: '2026-03-10T11:00:00Z' });
    // A message sent after it, with no window, goes out: the submitter has looked, and held the first.
    const [after] = await send([message('SMS', { destination: '79161239981', content: 'after the window test' })]);
    await untilWritten(t.herald, async () => (await statuses([after!]))[0]!.status === 'delivered');
    expect(t.simulators!.smsc.submissions.some((s) => s.text === 'window test')).toBe(false);
    expect((await statuses(ids))[0]!.status).toBe('sending');

    const resume = t.clock.now();
    t.clock.set('2026-03-10T11:00:00Z');
    try {
      t.herald.ctx.wakeup.notify();
      await untilWritten(t.herald, async () => (await statuses(ids))[0]!.status === 'delivered');
    } finally {
      t.clock.set(resume);
    }
  });

  it('makes a message whose window never opens unsent', async () => {
    // 09:00 in Moscow never coincides with 09:00 in Kamchatka, but +7 916 is Moscow only; use Moscow time and
    // a completion time before the only allowed hour instead.
    const ids = await send([
      message('SMS', { destination: '79161239992', hours: [23], localCompletionTime: '2026-03-10 20:00:00' }),
    ]);
    await untilWritten(t.herald, async () => (await statuses(ids))[0]!.status === 'unsent');
    const object = await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.traffic });
    expect(object.body).toMatchObject({ status: 'unsent', errorCode: 9002, plannedSendTime: null });
  });

  it('stops messages that wait, refuses those already sent, and does not know others', async () => {
    const waiting = await send([message('SMS', { destination: '79161239993', hours: [20] })]);
    const done = await send([message('SMS', { destination: '79161239994' })]);
    await untilWritten(t.herald, async () => (await statuses(done))[0]!.status === 'delivered');
    const reply = await t.call('POST', '/api/v1/message/stop', {
      token: account.traffic,
      body: { uuids: [waiting[0], done[0], '00000000-0000-7000-8000-000000000000', 'not-a-uuid'] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      errors: true,
      items: [
        { messageUuid: waiting[0], code: 200 },
        { messageUuid: done[0], code: 403 },
        { messageUuid: '00000000-0000-7000-8000-000000000000', code: 404 },
        { messageUuid: 'not-a-uuid', code: 404 },
      ],
    });
    const object = await t.call('GET', `/api/v1/message/${waiting[0]}`, { token: account.traffic });
    expect(object.body).toMatchObject({ status: 'unsent', errorCode: 9003 });
    const again = await t.call('POST', '/api/v1/message/stop', {
      token: account.traffic,
      body: { uuids: [waiting[0]] },
    });
    expect(again.body.items[0].code).toBe(403);
  });
});
