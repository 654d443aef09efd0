import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

const SMS = { channelType: 'SMS', senderName: SENDER, content: 'Hello {name}, your order {order} is ready' };

/**
 * Dispatches (DESIGN 15) through the real pipeline (the SMSC simulator over SMPP). The clock stands still unless a
 * test moves it: messages spread by a speed fall due as it moves.
 */
describe.each(ENGINES)('dispatches (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 5 } });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const api = (method: string, path: string, body?: unknown) =>
    t.call(method, `/api/v1/dispatch${path}`, { token: account.traffic, ...(body !== undefined ? { body } : {}) });
  const create = async (fields: Record<string, unknown> = {}): Promise<string> => {
    const reply = await api('POST', '', { dispatchName: 'March promo', ...SMS, ...fields });
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('initiated');
    return reply.body.dispatchId;
  };
  const add = (id: string, items: unknown[]) => api('POST', `/${id}/messages`, items);
  const people = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      destination: `${prefix}${String(i).padStart(3, '0')}0`,
      substitutions: { name: `P${i}`, order: String(100 + i) },
    }));
  const get = async (id: string) => (await api('GET', `/${id}`)).body;
  const submitted = (prefix: string) => t.simulators!.smsc.submissions.filter((s) => s.destination.startsWith(prefix));

  it('refuses a dispatch that could not be a message', async () => {
    const refuse = async (body: Record<string, unknown>, msg: string) => {
      const reply = await api('POST', '', body);
      expect(reply.status).toBe(422);
      expect(reply.body.error.msg).toBe(msg);
    };
    await refuse({ ...SMS }, 'Missing dispatchName');
    await refuse(
      { dispatchName: 'x', ...SMS, speed: { amount: 0, unit: 'minute' } },
      'Invalid speed: {"amount":0,"unit":"minute"}',
    );
    await refuse({ dispatchName: 'x', ...SMS, destination: '79161234567' }, 'Invalid destination');
    await refuse({ dispatchName: 'x', ...SMS, senderName: 'Nope' }, 'No active sender name: (SMS, Nope)');
    await refuse({ dispatchName: 'x', ...SMS, trafficType: 'BULK' }, 'Invalid trafficType: "BULK"');
    const whatsapp = await api('POST', '', {
      dispatchName: 'x',
      channelType: 'WHATSAPP',
      senderName: SENDER,
      content: { contentType: 'text', text: 'x' },
    });
    expect(whatsapp.status).toBe(422);
  });

  it('adds messages with substitutions, each held until the start; 7401 for what cannot be one', async () => {
    const id = await create();
    const reply = await add(id, [
      ...people('7916500', 3),
      { destination: 'not a number', substitutions: { name: 'x', order: '1' } },
      { destination: '79165009990', substitutions: { name: 'x' } },
    ]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.slice(0, 3), JSON.stringify(reply.body)).toEqual(expect.anything());
    expect(
      reply.body.slice(0, 3).map((i: { messageUuid?: string }) => typeof i.messageUuid),
      JSON.stringify(reply.body),
    ).toEqual(['string', 'string', 'string']);
    expect(reply.body[3]).toEqual({ destination: 'not a number', errorCode: 7401, msg: expect.any(String) });
    expect(reply.body[4]).toEqual({ destination: '79165009990', errorCode: 7401, msg: 'Missing substitution order' });
    const message = (await t.call('GET', `/api/v1/message/${reply.body[1].messageUuid}`, { token: account.traffic }))
      .body;
    expect(message).toMatchObject({
      status: 'sending',
      dispatchId: id,
      content: 'Hello P1, your order 101 is ready',
      trafficType: 'PROMO',
    });
    expect(await get(id)).toMatchObject({
      dispatchId: id,
      dispatchName: 'March promo',
      status: 'initiated',
      channelType: 'SMS',
      source: SENDER,
      message: SMS.content,
      messages: { total: 3, sending: 3, sent: 0, delivered: 0, undelivered: 0, unsent: 0 },
      parts: { total: 3, sending: 3 },
    });
    // Held: the submitter, polling all along, sends none of them before the start.
    await t.send(account.traffic, [{ ...SMS, content: 'marker', destination: '79165019990' }]);
    await waitFor(() => submitted('79165019990').length === 1);
    expect(submitted('7916500')).toHaveLength(0);

    expect((await api('POST', `/${id}/start`)).body).toEqual({ dispatchId: id });
    await untilWritten(t.herald, async () => (await get(id)).status === 'done');
    expect(await get(id)).toMatchObject({ messages: { total: 3, sending: 0, delivered: 3 } });
    expect(
      submitted('7916500')
        .map((s) => s.text)
        .sort(),
    ).toEqual([
      'Hello P0, your order 100 is ready',
      'Hello P1, your order 101 is ready',
      'Hello P2, your order 102 is ready',
    ]);
    const listed = await t.call('GET', `/api/v1/message?dispatch_id=${id}`, { token: account.traffic });
    expect(listed.body.total).toBe(3);
    // Started: no more messages, no second start.
    expect((await add(id, people('7916501', 1))).status).toBe(409);
    expect((await api('POST', `/${id}/start`)).status).toBe(409);
  });

  it('spreads its messages at its speed, pauses, resumes, and stops what has not gone, refunded', async () => {
    // 60 an hour: one a minute.
    const id = await create({ speed: { amount: 60, unit: 'hour' } });
    await add(id, people('7916502', 5));
    await api('POST', `/${id}/start`);
    const [first] = await t.testDb.db.query<{ planned: Date[] }>(
      `SELECT array_agg(planned_send_at ORDER BY id) AS planned FROM ${messageRows()} WHERE dispatch_id = $1`,
      [id],
    );
    const gaps = first!.planned.slice(1).map((p, i) => p.getTime() - first!.planned[i]!.getTime());
    expect(gaps).toEqual([60_000, 60_000, 60_000, 60_000]);
    await waitFor(() => submitted('7916502').length === 1);
    expect(await get(id)).toMatchObject({ status: 'sending' });

    expect((await api('POST', `/${id}/pause`)).status).toBe(200);
    t.clock.advance(5 * 60_000);
    // Paused: the minutes pass and nothing more goes.
    await t.send(account.traffic, [{ ...SMS, content: 'marker', destination: '79165029990' }]);
    await waitFor(() => submitted('79165029990').length === 1);
    expect(submitted('7916502').filter((s) => !s.destination.endsWith('9990'))).toHaveLength(1);
    expect(await get(id)).toMatchObject({ status: 'paused', messages: { sending: 4 } });

    await api('POST', `/${id}/resume`);
    await waitFor(() => submitted('7916502').filter((s) => !s.destination.endsWith('9990')).length === 2);
    expect((await api('POST', `/${id}/stop`)).status).toBe(200);
    // The second may have been on its way to the SMSC (leased) when the stop came: the answer waited for it.
    const stopped = await get(id);
    expect(stopped).toMatchObject({ status: 'stopped', messages: { total: 5, sending: 0, unsent: 3 } });
    expect(submitted('7916502').filter((s) => !s.destination.endsWith('9990'))).toHaveLength(2);
    expect((await api('POST', `/${id}/resume`)).status).toBe(409);
  });

  /** `n` destinations of `prefix` (6 digits), each ending 0 (delivered by the simulators). */
  const many = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      destination: `${prefix}${String(i).padStart(4, '0')}0`,
      substitutions: { name: `P${i}`, order: String(i) },
    }));
  /** A dispatch of `n` messages, added 1000 a call, started, and sending at full speed once `going` have gone. */
  const sendingAtSpeed = async (prefix: string, n: number, going: number): Promise<string> => {
    const id = await create();
    for (let i = 0; i < n; i += 1000) {
      const reply = await add(id, many(prefix, n).slice(i, i + 1000));
      expect(reply.body.every((item: { messageUuid?: string }) => item.messageUuid)).toBe(true);
    }
    expect((await api('POST', `/${id}/start`)).status).toBe(200);
    await waitFor(() => submitted(prefix).length >= going, { intervalMs: 1 });
    return id;
  };
  /** After a change's answer, the submitter keeps sending (a marker goes) and none of the dispatch's goes. */
  const noneGoesAfter = async (prefix: string, marker: string, answered: number) => {
    await t.send(account.traffic, [{ ...SMS, content: 'marker', destination: marker }]);
    await waitFor(() => submitted(marker).length === 1);
    expect(submitted(prefix)).toHaveLength(answered);
  };
  const submittedOnce = (prefix: string) => {
    const destinations = submitted(prefix).map((s) => s.destination);
    expect(new Set(destinations).size).toBe(destinations.length);
    return destinations.length;
  };

  it('stop races with sending: no message goes to the SMSC after its answer, each one gone counted once', async () => {
    const prefix = '791651';
    const id = await sendingAtSpeed(prefix, 2000, 100);
    const before = submitted(prefix).length;
    expect((await api('POST', `/${id}/stop`)).status).toBe(200);
    const answered = submitted(prefix).length;
    // Settled at the answer: nothing of it waits or is in a worker's hand.
    const at = await get(id);
    expect(at).toMatchObject({ status: 'stopped', messages: { total: 2000, sending: 0 } });
    await noneGoesAfter(prefix, '79165991110', answered);
    expect(answered).toBeGreaterThanOrEqual(before);
    expect(submittedOnce(prefix)).toBe(answered);
    await untilWritten(t.herald, async () => (await get(id)).messages.sent === 0);
    const end = (await get(id)).messages;
    // Each message that went is delivered, each that did not is unsent: none lost, none twice.
    expect(end).toEqual({
      total: 2000,
      sending: 0,
      sent: 0,
      delivered: answered,
      undelivered: 0,
      unsent: 2000 - answered,
    });
  });

  it('pause races with sending: none goes after its answer; after resume each goes exactly once', async () => {
    const prefix = '791652';
    const id = await sendingAtSpeed(prefix, 2000, 100);
    expect((await api('POST', `/${id}/pause`)).status).toBe(200);
    const answered = submitted(prefix).length;
    // Every message not yet handed over is held: none is due, none in a worker's hand.
    const [waiting] = await t.testDb.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${messageRows()}
         WHERE dispatch_id = $1 AND status = 'sending' AND due_at <> 'infinity'`,
      [id],
    );
    expect(waiting!.n).toBe(0);
    expect(await get(id)).toMatchObject({ status: 'paused', messages: { total: 2000, sending: 2000 - answered } });
    await noneGoesAfter(prefix, '79165992220', answered);

    expect((await api('POST', `/${id}/resume`)).status).toBe(200);
    await untilWritten(t.herald, async () => (await get(id)).status === 'done', { timeoutMs: 60_000 });
    expect(submittedOnce(prefix)).toBe(2000);
    expect((await get(id)).messages).toEqual({
      total: 2000,
      sending: 0,
      sent: 0,
      delivered: 2000,
      undelivered: 0,
      unsent: 0,
    });
  });

  it('lists dispatches with filters', async () => {
    const other = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const created = await t.call('POST', '/api/v1/dispatch', {
      token: other.traffic,
      body: { dispatchName: 'Only one', ...SMS },
    });
    const list = await t.call('GET', '/api/v1/dispatch?status=initiated', { token: other.traffic });
    expect(list.body.total).toBe(1);
    expect(list.body.items[0]).toMatchObject({ dispatchId: created.body.dispatchId, dispatchName: 'Only one' });
    const none = await t.call('GET', '/api/v1/dispatch?dispatch_name=Other', { token: other.traffic });
    expect(none.body).toEqual({ total: 0, items: [] });
    // Another account's dispatch does not exist for this one.
    expect((await api('GET', `/${created.body.dispatchId}`)).status).toBe(404);
  });
});
