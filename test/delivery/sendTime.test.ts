import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { insertMessage, type MessageFields } from '../factories/rows.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

interface Row {
  status: string;
  read_status: string | null;
  error_code: number | null;
  due_at: Date | null;
  history: { status: string; detail?: string; retryAt?: string }[];
}

/**
 * What is checked again when a message's turn to be sent comes (DESIGN section 12), through the real submitter,
 * connectors and simulators: the send window, the one lifetime (and the validity given to the SMSC), the WhatsApp
 * chat window. The clock stands still unless a test moves it; the submitter claims by itself as it polls.
 */
describe.each(ENGINES)('checks at the moment of sending (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 20 } });
    account = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
      ],
      openWhatsapp: false,
    });
  });
  afterAll(async () => t?.close());

  const row = async (id: string): Promise<Row> =>
    (
      await t.testDb.db.query<Row>(
        `SELECT status, read_status, error_code, due_at, history FROM ${messageRows()} WHERE id = $1`,
        [id],
      )
    )[0]!;
  const submitted = (destination: string) =>
    t.simulators!.smsc.submissions.filter((s) => s.destination === destination);
  /** A message stored earlier and due since then, as after a backlog or an outage: the submitter claims it late. */
  const late = (fields: Partial<MessageFields>): Promise<string> =>
    insertMessage(t.testDb.db, {
      accountId: account.id,
      senderName: SENDER,
      createdAt: new Date(t.clock.now().getTime() - 3 * 3600_000),
      ...fields,
    });

  it('holds a message claimed outside its hours until its next allowed instant, then sends it', async () => {
    t.clock.set('2026-03-10T09:00:00Z'); // 12:00 in Moscow
    // Planned for 09:30 Moscow (06:30 UTC) with hours [9], claimed late, at 12:00.
    const id = await late({
      destination: '79161240010',
      hours: [9],
      plannedSendAt: new Date('2026-03-10T06:30:00Z'),
      ttl: 86_400,
    });
    await untilWritten(t.herald, async () =>
      (await row(id)).history.some((h) => h.detail === 'outside its send window'),
    );
    const held = await row(id);
    expect(held).toMatchObject({ status: 'sending', due_at: new Date('2026-03-11T06:00:00Z') });
    expect(submitted('79161240010')).toHaveLength(0);

    t.clock.set('2026-03-11T06:00:00Z');
    await untilWritten(t.herald, async () => (await row(id)).status === 'delivered');
    const [submission] = submitted('79161240010');
    // Its lifetime ends 24 hours after its planned time (06:30 UTC on the 11th): the SMSC is given what is left.
    expect(Math.abs(submission!.validitySeconds! - 1800)).toBeLessThanOrEqual(2);
  });

  it('makes a message unsent when its window does not open again before its deadline', async () => {
    t.clock.set('2026-03-10T07:30:00Z'); // 10:30 in Moscow
    const id = await late({
      destination: '79161240020',
      hours: [9],
      plannedSendAt: new Date('2026-03-10T06:00:00Z'),
      ttl: 7200,
    });
    await untilWritten(t.herald, async () => (await row(id)).status === 'unsent');
    expect((await row(id)).error_code).toBe(DELIVERY_ERRORS.deadlinePassed);
    expect(submitted('79161240020')).toHaveLength(0);
  });

  it('gives the SMSC the lifetime left, and ends the message at the end of its one lifetime', async () => {
    t.clock.set('2026-03-10T09:00:00Z');
    // A fresh message with ttl 600: validity 600 s.
    const fresh = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { destination: '79161240031', ttl: 600 })],
    });
    await untilWritten(t.herald, () => submitted('79161240031').length === 1);
    expect(Math.abs(submitted('79161240031')[0]!.validitySeconds! - 600)).toBeLessThanOrEqual(2);
    expect(fresh.body.errors).toBe(false);

    // Planned 300 s ago with ttl 600, sent now: 300 s left; no receipt ever comes (last digit 9).
    const id = await late({ destination: '79161240039', ttl: 600, plannedSendAt: new Date('2026-03-10T08:55:00Z') });
    await untilWritten(t.herald, () => submitted('79161240039').length === 1);
    expect(Math.abs(submitted('79161240039')[0]!.validitySeconds! - 300)).toBeLessThanOrEqual(2);
    await untilWritten(t.herald, async () => (await row(id)).status === 'sent');
    expect((await row(id)).due_at).toEqual(new Date('2026-03-10T09:05:00Z'));
    t.clock.set('2026-03-10T09:05:00Z');
    await t.herald.jobs!.run('expire-lifetimes');
    expect(await row(id)).toMatchObject({ status: 'undelivered', error_code: DELIVERY_ERRORS.noReceipt });
  });

  it('gives a message without ttl 25 hours, and a re-submission after a carrier failure the time left', async () => {
    t.clock.set('2026-03-10T10:00:00Z');
    await t.send(account.traffic, [message('SMS', { destination: '79161240051' })]);
    // The jump from the test before outlasts the SMPP session's enquire_link answer, so it reconnects first: the
    // clock goes on a second at a time until the message is sent (the time left shrinks by as much).
    await waitFor(() => {
      if (submitted('79161240051').length === 1) return true;
      t.clock.advance(1000);
      return false;
    });
    expect(Math.abs(submitted('79161240051')[0]!.validitySeconds! - 25 * 3600)).toBeLessThanOrEqual(60);

    // The SMSC is busy (ESME_RTHROTTLED): the message goes back to the queue and is sent again later.
    const smsc = t.simulators!.smsc;
    smsc.refuseSubmissions(0x58);
    try {
      const [id] = await t.send(account.traffic, [message('SMS', { destination: '79161240052', ttl: 3600 })]);
      // The connector pauses and probes on Herald's clock; after 10 s refused the message goes back to the queue.
      await waitFor(async () => {
        if ((await row(id!)).history.some((h) => h.retryAt !== undefined)) return true;
        t.clock.advance(1000);
        return false;
      });
      const refused = submitted('79161240052').map((s) => s.status);
      expect(refused.length).toBeGreaterThan(0);
      expect(new Set(refused)).toEqual(new Set([0x58]));
      smsc.refuseSubmissions(undefined);
      // Sent again 20 minutes after it was accepted: the carrier gets the 40 minutes left, not the whole hour.
      t.clock.advance(20 * 60_000);
      // The jump outlasts the SMPP session's enquire_link answer, so it reconnects first: the clock goes on
      // a second at a time until the message is sent.
      const accepted = () => submitted('79161240052').find((s) => s.status === 0);
      await waitFor(() => {
        if (accepted()) return true;
        t.clock.advance(1000);
        return false;
      });
      // 40 minutes left, less the seconds the refusals and the reconnection took.
      expect(Math.abs(accepted()!.validitySeconds! - 40 * 60)).toBeLessThanOrEqual(90);
    } finally {
      smsc.refuseSubmissions(undefined);
    }
  });

  it('makes a free-form WhatsApp message unsent when its chat window closed before its turn came', async () => {
    t.clock.set('2026-03-10T09:00:00Z');
    const now = t.clock.now();
    for (const subscriber of ['79161240040', '79161240041']) {
      await t.testDb.db.query(
        'INSERT INTO whatsapp_windows (account_id, sender_name, subscriber, opened_at, expires_at) ' +
          'VALUES ($1, $2, $3, $4, $5)',
        [account.id, SENDER, subscriber, now, new Date(now.getTime() + 24 * 3600_000)],
      );
    }
    // Accepted while the window is open; one goes at once, the other at a send time past the window's end.
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        message('WHATSAPP', { destination: '79161240040' }),
        message('WHATSAPP', { destination: '79161240041', localSendTime: '2026-03-11 13:00:00' }),
      ],
    });
    expect(reply.body.items.map((i: { code: number }) => i.code)).toEqual([201, 201]);
    const [now_, later] = reply.body.items.map((i: { messageUuid: string }) => i.messageUuid);
    await untilWritten(t.herald, async () => (await row(now_)).status === 'delivered');

    t.clock.set('2026-03-11T10:00:00Z'); // 13:00 in Moscow: the window closed at 09:00 UTC.
    await untilWritten(t.herald, async () => (await row(later)).status === 'unsent');
    expect((await row(later)).error_code).toBe(DELIVERY_ERRORS.chatWindowClosed);
  });

  it('keeps a read message delivered in lists and statistics, with its read status apart', async () => {
    t.clock.set('2026-03-10T09:00:00Z');
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('VK', { destination: '79161240050' })],
    });
    const id = reply.body.items[0].messageUuid;
    await untilWritten(t.herald, async () => (await row(id)).read_status === 'read');
    const object = await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic });
    expect(object.body).toMatchObject({ status: 'delivered', readStatus: 'read' });
    const list = await t.call('GET', '/api/v1/message?status=delivered&channel_type=VK', { token: account.traffic });
    expect(list.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toContain(id);
    const stats = await t.call(
      'GET',
      '/api/v1/statistics?groupBy=channelType&channelType=VK&from=2026-03-01&to=2026-03-12',
      { token: account.system },
    );
    expect(stats.body.items.find((g: { key: string }) => g.key === 'VK').statuses).toMatchObject({ delivered: 1 });
    expect(stats.body.items.find((g: { key: string }) => g.key === 'VK').statuses.read).toBeUndefined();
  });
});
