import smpp from 'smpp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callbackSmppWaiting } from '../../src/callbacks/index.js';
import { ESME, HERALD_ERROR_TLV } from '../../src/smppServer/smppStatuses.js';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, secretOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { SmppTestClient } from './smppClient.js';

smpp.addTLV('herald_error_code', { id: HERALD_ERROR_TLV, type: smpp.types.tlv.int32 });

/** Destinations by the simulator's last-digit rule: 1 delivered, 7 undelivered. */
const DELIVERED = '79161234561';

describe.each(ENGINES)('the SMPP server for clients on %s', (engine) => {
  let t: TestHerald;
  let port: number;
  const clients: SmppTestClient[] = [];

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: { HERALD_SMPP_PORT: '0', HERALD_SMPP_RATE_LIMIT: '50' },
      delivery: { delayMs: 20 },
      smppServer: { pollMs: 50, retryMs: 200 },
    });
    port = t.herald.smppServer!.port;
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  const account = (): Promise<TestAccount> => t.createAccount({ senderNames: [['SMS', 'Herald']] });
  const bind = async (
    systemId: string,
    password: string,
    command: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver' = 'bind_transceiver',
  ) => {
    const bound = await SmppTestClient.bound(port, systemId, password, command);
    clients.push(bound.client);
    return bound;
  };
  const bindOk = async (a: TestAccount, command?: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver') => {
    const { client, answer } = await bind(keyIdOf(a.traffic), secretOf(a.traffic), command);
    expect(answer.command_status).toBe(ESME.ROK);
    return client;
  };
  const issuePassword = async (a: TestAccount): Promise<string> => {
    const issued = await t.call('POST', '/api/v1/smpp-passwords', {
      token: a.system,
      body: { keyId: keyIdOf(a.traffic) },
    });
    expect(issued.status).toBe(201);
    return issued.body.password as string;
  };
  const message = (uuid: string) => t.call('GET', `/api/v1/message/${uuid}`, { token: adminless.traffic });
  let adminless: TestAccount;

  describe('binds', () => {
    it('binds with an issued 8-character password or the whole secret, and refuses everything else', async () => {
      const a = await account();
      const password = await issuePassword(a);
      expect(password).toMatch(/^[A-Za-z0-9]{8}$/);
      const keyId = keyIdOf(a.traffic);
      for (const command of ['bind_transmitter', 'bind_receiver', 'bind_transceiver'] as const) {
        const { answer } = await bind(keyId, password, command);
        expect(answer).toMatchObject({ command: `${command}_resp`, command_status: ESME.ROK });
        await Promise.all(clients.splice(0).map((c) => c.close()));
      }
      expect((await bind(keyId, secretOf(a.traffic))).answer.command_status).toBe(ESME.ROK);
      // A new password replaces the old one.
      const renewed = await issuePassword(a);
      if (renewed !== password) expect((await bind(keyId, password)).answer.command_status).toBe(ESME.RINVPASWD);
      expect((await bind(keyId, 'wrong123')).answer.command_status).toBe(ESME.RINVPASWD);
      expect((await bind('t1_nobodysKeyId00000', renewed)).answer.command_status).toBe(ESME.RINVSYSID);
      // A system token cannot bind.
      expect((await bind(keyIdOf(a.system), secretOf(a.system))).answer.command_status).toBe(ESME.RINVSYSID);
    });

    it('refuses a revoked key, a blocked account, a second bind on a connection and binds over smppBinds', async () => {
      const a = await account();
      const issued = await t.admin('POST', `/admin/v1/accounts/${a.id}/tokens`, { type: 'traffic' });
      const second = issued.body.token as string;
      // The operator issues SMPP passwords too.
      const byOperator = await t.admin('POST', `/admin/v1/accounts/${a.id}/smpp-passwords`, { keyId: keyIdOf(second) });
      expect(byOperator.status).toBe(201);
      expect((await bind(keyIdOf(second), byOperator.body.password)).answer.command_status).toBe(ESME.ROK);
      await Promise.all(clients.splice(0).map((c) => c.close()));
      expect((await t.admin('DELETE', `/admin/v1/accounts/${a.id}/tokens/${keyIdOf(second)}`)).status).toBeLessThan(
        300,
      );
      expect((await bind(keyIdOf(second), secretOf(second))).answer.command_status).toBe(ESME.RINVSYSID);

      const client = await bindOk(a);
      const again = await client.request('bind_transceiver', {
        system_id: keyIdOf(a.traffic),
        password: secretOf(a.traffic),
      });
      expect(again.command_status).toBe(ESME.RALYBND);
      // The closed binds' rows are gone (every api process counts them): one bind is up.
      await waitFor(
        async () => (await t.call('GET', '/api/v1/smpp-binds', { token: a.system })).body.items.length === 1,
      );

      expect((await t.admin('PATCH', `/admin/v1/accounts/${a.id}`, { smppBinds: 2 })).body.smppBinds).toBe(2);
      await bindOk(a, 'bind_receiver');
      expect((await bind(keyIdOf(a.traffic), secretOf(a.traffic))).answer.command_status).toBe(ESME.RBINDFAIL);

      const listed = await t.call('GET', '/api/v1/smpp-binds', { token: a.system });
      expect(listed.body.items).toHaveLength(2);
      expect(listed.body.items.map((b: { bindType: string }) => b.bindType).sort()).toEqual([
        'receiver',
        'transceiver',
      ]);
      expect(listed.body.items[0]).toMatchObject({ systemId: keyIdOf(a.traffic), window: { size: 100 } });
      const every = await t.admin('GET', '/admin/v1/smpp-binds');
      expect(every.body.items.filter((b: { accountId: number }) => b.accountId === a.id)).toHaveLength(2);

      await Promise.all(clients.splice(0).map((c) => c.close()));
      await t.admin('PATCH', `/admin/v1/accounts/${a.id}`, { status: 'blocked' });
      expect((await bind(keyIdOf(a.traffic), secretOf(a.traffic))).answer.command_status).toBe(ESME.RBINDFAIL);
    });

    it('answers enquire_link, unbind, an unknown command with generic_nack, and submit_sm before a bind', async () => {
      const client = await SmppTestClient.connect(port);
      clients.push(client);
      expect((await client.submit({ destination_addr: DELIVERED, short_message: 'x' })).command_status).toBe(
        ESME.RINVBNDSTS,
      );
      const a = await account();
      expect(
        (await client.request('bind_transmitter', { system_id: keyIdOf(a.traffic), password: secretOf(a.traffic) }))
          .command_status,
      ).toBe(ESME.ROK);
      expect(await client.request('enquire_link')).toMatchObject({ command: 'enquire_link_resp', command_status: 0 });
      const unknown = new smpp.PDU('enquire_link');
      unknown.command_id = 0x00000099;
      expect(await client.send(unknown)).toMatchObject({ command: 'generic_nack', command_status: ESME.RINVCMDID });
      expect(await client.request('replace_sm', { message_id: 'x' })).toMatchObject({ command: 'generic_nack' });
      expect(await client.request('unbind')).toMatchObject({ command: 'unbind_resp', command_status: 0 });
      await waitFor(() => client.closed);
    });
  });

  describe('submit_sm', () => {
    beforeAll(async () => {
      adminless = await account();
    });

    it('takes a message as POST /api/v1/message does and answers with its messageUuid', async () => {
      const client = await bindOk(adminless, 'bind_transmitter');
      const answer = await client.submit({
        source_addr: 'Herald',
        destination_addr: DELIVERED,
        short_message: 'Your code is 1234',
        service_type: 'AUTHORIZE',
        validity_period: '000000010000000R',
      });
      expect(answer.command_status).toBe(ESME.ROK);
      const stored = await message(String(answer.message_id));
      expect(stored.body).toMatchObject({
        messageUuid: answer.message_id,
        channelType: 'SMS',
        senderName: 'Herald',
        destination: DELIVERED,
        content: 'Your code is 1234',
        trafficType: 'AUTHORIZE',
        ttl: 3600,
      });
    });

    it('answers every refusal with its SMPP status and Herald code in the vendor TLV', async () => {
      const client = await bindOk(adminless, 'bind_transmitter');
      const ok = { source_addr: 'Herald', destination_addr: DELIVERED, short_message: 'Hello' };
      const cases: [Record<string, unknown>, number, number][] = [
        [{ source_addr: 'Nobody' }, ESME.RINVSRCADR, 4220],
        [{ destination_addr: '12' }, ESME.RINVDSTADR, 4220],
        [{ validity_period: 'garbage' }, ESME.RINVEXPIRY, 4220],
        [{ validity_period: '010000000000000R' }, ESME.RINVEXPIRY, 4220],
        [{ schedule_delivery_time: 'garbage' }, ESME.RINVSCHED, 4220],
        [{ service_type: 'CMT' }, ESME.RINVSERTYP, 4220],
        [{ short_message: '' }, ESME.RINVMSGLEN, 4220],
        [{ data_coding: 4, short_message: Buffer.from('Hello') }, ESME.RINVDCS, 4220],
      ];
      for (const [change, status, code] of cases) {
        const answer = await client.submit({ ...ok, ...change });
        expect({ change, status: answer.command_status, code: answer.herald_error_code }).toEqual({
          change,
          status,
          code,
        });
      }
      // The positive control: the same fields unchanged are taken.
      expect((await client.submit(ok)).command_status).toBe(ESME.ROK);
    });

    it('refuses for funds and the stop list with ESME_RSUBMITFAIL and Herald codes 4020 and 4032', async () => {
      const poor = await account();
      await t.admin('POST', '/admin/v1/tariffs', {
        accountId: poor.id,
        channelType: 'SMS',
        price: 5,
        currency: 'RUB',
      });
      const client = await bindOk(poor, 'bind_transmitter');
      const funds = await client.submit({ source_addr: 'Herald', destination_addr: DELIVERED, short_message: 'Hi' });
      expect([funds.command_status, funds.herald_error_code]).toEqual([ESME.RSUBMITFAIL, 4020]);

      const listed = await account();
      const stop = await t.call('POST', '/api/v1/stop-list', { token: listed.system, body: { number: DELIVERED } });
      expect(stop.status).toBe(201);
      const c2 = await bindOk(listed, 'bind_transmitter');
      const refused = await c2.submit({ source_addr: 'Herald', destination_addr: DELIVERED, short_message: 'Hi' });
      expect([refused.command_status, refused.herald_error_code]).toEqual([ESME.RSUBMITFAIL, 4032]);
      expect(
        (await c2.submit({ source_addr: 'Herald', destination_addr: '79161234562', short_message: 'Hi' }))
          .command_status,
      ).toBe(ESME.ROK);
    });

    it('refuses for the fraud guard with ESME_RSUBMITFAIL and Herald code 4035, the rest taken', async () => {
      const guarded = await account();
      await t.admin('PATCH', `/admin/v1/accounts/${guarded.id}`, {
        geoPermissions: { allow: ['RU'], mode: 'enforce' },
      });
      const client = await bindOk(guarded, 'bind_transmitter');
      const german = await client.submit({
        source_addr: 'Herald',
        destination_addr: '4915123456781',
        short_message: 'Hi',
      });
      expect([german.command_status, german.herald_error_code]).toEqual([ESME.RSUBMITFAIL, 4035]);
      const russian = await client.submit({ source_addr: 'Herald', destination_addr: DELIVERED, short_message: 'Hi' });
      expect(russian.command_status).toBe(ESME.ROK);
    });

    it('stores submits that arrive together in batches, refusing only the invalid one of a batch', async () => {
      const a = await account();
      const client = await bindOk(a, 'bind_transmitter');
      // 40 at once (within the rate's burst of 100 and the window of 100); the 10th and the 30th have a destination
      // that no validation takes.
      const bad = new Set([9, 29]);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          client.submit({
            source_addr: 'Herald',
            destination_addr: bad.has(i) ? '12' : `7916123${String(i).padStart(4, '0')}`,
            short_message: `batch ${i}`,
            // An hour from now: the rows stay as their insert wrote them (xmin below is the storing transaction's).
            schedule_delivery_time: '000001000000000R',
          }),
        ),
      );
      answers.forEach((answer, i) =>
        expect([i, answer.command_status]).toEqual([i, bad.has(i) ? ESME.RINVDSTADR : ESME.ROK]),
      );
      // Each accepted one is its own message; they were stored in fewer transactions than messages (a row's xmin is
      // the transaction that inserted it while nothing updated it).
      const ids = answers.filter((p) => p.command_status === ESME.ROK).map((p) => String(p.message_id));
      expect(new Set(ids).size).toBe(38);
      const [row] = await t.testDb.db.query<{ messages: number; transactions: number }>(
        `SELECT count(*)::int AS messages, count(DISTINCT xmin::text)::int AS transactions
         FROM messages WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      expect(row!.messages).toBe(38);
      expect(row!.transactions).toBeLessThan(38);
    });

    it('throttles past the account rate with ESME_RTHROTTLED', async () => {
      const a = await account();
      const client = await bindOk(a, 'bind_transmitter');
      // HERALD_SMPP_RATE_LIMIT 50 a second with a burst of 100: 150 at once cannot all pass.
      const answers = await Promise.all(
        Array.from({ length: 150 }, () =>
          client.submit({ source_addr: 'Herald', destination_addr: DELIVERED, short_message: 'Hi' }),
        ),
      );
      const statuses = answers.map((p) => p.command_status);
      expect(statuses).toContain(ESME.ROK);
      expect(statuses).toContain(ESME.RTHROTTLED);
      expect(answers.find((p) => p.command_status === ESME.RTHROTTLED)!.herald_error_code).toBe(4290);
    });

    it.each(['udh8', 'udh16', 'sar'] as const)(
      'joins a 3-part message (%s) into one message, each part answered with its messageUuid',
      async (form) => {
        const client = await bindOk(adminless, 'bind_transmitter');
        const text = 'a'.repeat(153) + 'b'.repeat(153) + 'the end';
        const chunks = [text.slice(0, 153), text.slice(153, 306), text.slice(306)];
        const reference = form === 'udh16' ? 0x1234 : 0x42;
        const answers = await Promise.all(
          chunks.map((chunk, i) => {
            const base = { source_addr: 'Herald', destination_addr: DELIVERED, data_coding: 0 };
            if (form === 'sar') {
              return client.submit({
                ...base,
                short_message: chunk,
                sar_msg_ref_num: reference,
                sar_total_segments: 3,
                sar_segment_seqnum: i + 1,
              });
            }
            const udh =
              form === 'udh16'
                ? [0x06, 0x08, 0x04, reference >> 8, reference & 0xff, 3, i + 1]
                : [0x05, 0x00, 0x03, reference, 3, i + 1];
            return client.submit({
              ...base,
              esm_class: 0x40,
              short_message: Buffer.concat([Buffer.from(udh), Buffer.from(chunk, 'ascii')]),
            });
          }),
        );
        expect(answers.map((a) => a.command_status)).toEqual([0, 0, 0]);
        const ids = new Set(answers.map((a) => String(a.message_id)));
        expect(ids.size).toBe(1);
        const stored = await message([...ids][0]!);
        expect(stored.body).toMatchObject({ content: text, totalParts: 3 });
      },
    );

    it("refuses the parts of a message whose other parts miss the 60 s wait, and a receiver's submit", async () => {
      const client = await bindOk(adminless, 'bind_transmitter');
      const part = (n: number) =>
        client.submit({
          source_addr: 'Herald',
          destination_addr: DELIVERED,
          esm_class: 0x40,
          short_message: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x77, 3, n]), Buffer.from('part', 'ascii')]),
        });
      const answers = Promise.all([part(1), part(3)]);
      // Both parts wait (unanswered) for part 2; the test clock jumps over the wait.
      await waitFor(() => t.herald.smppServer!.bound().some((cs) => cs.parts.size === 2));
      t.clock.advance(60_000);
      expect((await answers).map((p) => [p.command_status, p.herald_error_code])).toEqual([
        [ESME.RSUBMITFAIL, 4220],
        [ESME.RSUBMITFAIL, 4220],
      ]);
      const receiver = await bindOk(adminless, 'bind_receiver');
      expect(
        (await receiver.submit({ source_addr: 'Herald', destination_addr: DELIVERED, short_message: 'x' }))
          .command_status,
      ).toBe(ESME.RINVBNDSTS);
    });

    it('takes UCS-2 and Latin-1 texts and message_payload', async () => {
      const client = await bindOk(adminless, 'bind_transmitter');
      const base = { source_addr: 'Herald', destination_addr: DELIVERED };
      const ucs2 = await client.submit({
        ...base,
        data_coding: 8,
        short_message: Buffer.from('Привет', 'utf16le').swap16(),
      });
      expect((await message(String(ucs2.message_id))).body.content).toBe('Привет');
      const latin = await client.submit({ ...base, data_coding: 3, short_message: Buffer.from('Café', 'latin1') });
      expect((await message(String(latin.message_id))).body.content).toBe('Café');
      const long = 'x'.repeat(400);
      const payload = await client.submit({ ...base, data_coding: 0, message_payload: long });
      expect((await message(String(payload.message_id))).body).toMatchObject({ content: long, totalParts: 3 });
    });
  });

  describe('receipts', () => {
    const submitWithReceipt = async (
      client: SmppTestClient,
      destination = DELIVERED,
      registered_delivery = 1,
    ): Promise<string> => {
      const answer = await client.submit({
        source_addr: 'Herald',
        destination_addr: destination,
        short_message: 'Receipt please',
        registered_delivery,
      });
      expect(answer.command_status).toBe(ESME.ROK);
      return String(answer.message_id);
    };
    /** Waits until the account's ended receipt batches hold `events` events. */
    const batchesEnded = (a: TestAccount, events: number) =>
      waitFor(async () => {
        const posts = await t.call('GET', '/api/v1/callbacks', { token: a.system });
        const items = posts.body.items as { state: string; events: number }[];
        return items.filter((p) => p.state === 'delivered').reduce((n, p) => n + p.events, 0) === events;
      });
    const statusOf = async (a: TestAccount, uuid: string) =>
      (await t.call('GET', `/api/v1/message/${uuid}`, { token: a.traffic })).body.status as string;

    it('sends the receipt to another bind of the account: text, receipted_message_id and message_state', async () => {
      const a = await account();
      const transmitter = await bindOk(a, 'bind_transmitter');
      const receiver = await bindOk(a, 'bind_receiver');
      const delivered = await submitWithReceipt(transmitter);
      const undelivered = await submitWithReceipt(transmitter, '79161234567');
      await waitFor(() => receiver.receiptIds().length >= 2, { timeoutMs: 30_000 });
      expect(transmitter.delivered).toEqual([]);
      const byId = new Map(receiver.delivered.map((p) => [String(p.receipted_message_id), p]));
      const ok = byId.get(delivered)!;
      expect(ok).toMatchObject({
        esm_class: 0x04,
        message_state: 2,
        source_addr: DELIVERED,
        destination_addr: 'Herald',
      });
      expect(String((ok.short_message as { message: string }).message)).toMatch(
        new RegExp(
          `^id:${delivered} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} ` +
            'stat:DELIVRD err:000 text:Receipt please$',
        ),
      );
      const bad = byId.get(undelivered)!;
      expect(bad.message_state).toBe(5);
      expect(String((bad.short_message as { message: string }).message)).toMatch(/stat:UNDELIV/);
      // Without registered_delivery, no receipt.
      const silent = await transmitter.submit({
        source_addr: 'Herald',
        destination_addr: DELIVERED,
        short_message: 'x',
      });
      await waitFor(async () => (await statusOf(a, String(silent.message_id))) === 'delivered');
      expect(receiver.receiptIds()).not.toContain(String(silent.message_id));
    });

    it('sends a receipt for registered_delivery 2 only when the message failed', async () => {
      const a = await account();
      const transmitter = await bindOk(a, 'bind_transmitter');
      const receiver = await bindOk(a, 'bind_receiver');
      const delivered = await submitWithReceipt(transmitter, DELIVERED, 2);
      const undelivered = await submitWithReceipt(transmitter, '79161234567', 2);
      // 3 is reserved: taken as 1.
      const reserved = await submitWithReceipt(transmitter, DELIVERED, 3);
      const shown = await t.call('GET', `/api/v1/message/${delivered}`, { token: a.traffic });
      expect(shown.body.callbackUrl).toBe('smpp:binds:failures');
      // All three events delivered in ended receipt batches: the delivered message's was done without a deliver_sm.
      await batchesEnded(a, 3);
      expect(receiver.receiptIds().sort()).toEqual([undelivered, reserved].sort());
      const failed = receiver.delivered.find((p) => String(p.receipted_message_id) === undelivered)!;
      expect(failed.message_state).toBe(5);
    });

    it('sends an intermediate notification at the hand-over when registered_delivery asks (bit 4)', async () => {
      const a = await account();
      const transmitter = await bindOk(a, 'bind_transmitter');
      const receiver = await bindOk(a, 'bind_receiver');
      const both = await submitWithReceipt(transmitter, DELIVERED, 0x11);
      const intermediateOnly = await submitWithReceipt(transmitter, DELIVERED, 0x10);
      // Three events (two intermediate, one final) in ended receipt batches.
      await batchesEnded(a, 3);
      const of = (id: string) =>
        receiver.delivered
          .filter((p) => String(p.receipted_message_id) === id)
          .map((p) => ({
            esm_class: p.esm_class,
            message_state: p.message_state,
            stat: /stat:(\w+)/.exec(String((p.short_message as { message: string }).message))?.[1],
          }))
          // SMPP promises no order between two deliver_sm.
          .sort((x, y) => Number(y.esm_class) - Number(x.esm_class));
      const intermediate = { esm_class: 0x20, message_state: 1, stat: 'ENROUTE' };
      expect(of(both)).toEqual([intermediate, { esm_class: 0x04, message_state: 2, stat: 'DELIVRD' }]);
      expect(of(intermediateOnly)).toEqual([intermediate]);
      const text = await (await fetch(`${t.url}/metrics`)).text();
      expect(text).toMatch(/herald_smpp_server_deliver_sm_total\{kind="intermediate",outcome="acknowledged"\} [1-9]/);
    });

    it('keeps receipts while no receiver is bound and delivers them on the next bind, once', async () => {
      const a = await account();
      const transmitter = await bindOk(a, 'bind_transmitter');
      const ids = [await submitWithReceipt(transmitter), await submitWithReceipt(transmitter)];
      for (const id of ids) await waitFor(async () => (await statusOf(a, id)) === 'delivered');
      // The client's list of callback POSTs shows the waiting receipts as an open POST to smpp:binds, due for no one.
      await waitFor(async () => {
        const posts = await t.call('GET', '/api/v1/callbacks', { token: a.system });
        expect(posts.status).toBe(200);
        return posts.body.items.some(
          (p: { url: string; state: string; nextAttemptTime: string | null }) =>
            p.url === 'smpp:binds' && p.state === 'open' && p.nextAttemptTime === null,
        );
      });
      const late = await bindOk(a, 'bind_receiver');
      await waitFor(() => late.receiptIds().length >= 2, { timeoutMs: 30_000 });
      expect(late.receiptIds().sort()).toEqual([...ids].sort());
      // Acknowledged: a later bind gets none of them again.
      await late.close();
      const next = await bindOk(a, 'bind_transceiver');
      const more = await submitWithReceipt(next);
      await waitFor(() => next.receiptIds().includes(more), { timeoutMs: 30_000 });
      expect(next.receiptIds()).toEqual([more]);
    });

    it('loses nothing and sends no acknowledged receipt twice when a client dies mid-stream', async () => {
      const a = await account();
      const receiver = await bindOk(a, 'bind_receiver');
      receiver.answering = false;
      const transmitter = await bindOk(a, 'bind_transmitter');
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await submitWithReceipt(transmitter));
      await waitFor(() => receiver.held.length === 6, { timeoutMs: 30_000 });
      const answered = receiver.held.slice(0, 2).map((p) => String(p.receipted_message_id));
      receiver.answerHeld(2);
      // The two answers are read before the socket dies: an enquire_link answered after them proves it.
      await receiver.request('enquire_link');
      receiver.destroy();
      const again = await bindOk(a, 'bind_receiver');
      await waitFor(() => again.receiptIds().length >= 4, { timeoutMs: 30_000 });
      const redelivered = again.receiptIds();
      expect(redelivered.sort()).toEqual(ids.filter((id) => !answered.includes(id)).sort());
      await waitFor(async () => (await callbackSmppWaiting(t.herald.ctx.db)) === 0);
      expect(again.receiptIds()).toHaveLength(4);
    });
  });

  describe('query_sm and cancel_sm', () => {
    const submit = async (client: SmppTestClient, fields: Record<string, unknown> = {}): Promise<string> => {
      const answer = await client.submit({
        source_addr: 'Herald',
        destination_addr: DELIVERED,
        short_message: 'Query me',
        ...fields,
      });
      expect(answer.command_status).toBe(ESME.ROK);
      return String(answer.message_id);
    };
    const shown = async (a: TestAccount, uuid: string) =>
      (await t.call('GET', `/api/v1/message/${uuid}`, { token: a.traffic })).body;

    it("answers a message's state and final date, and refuses unknown ids and other accounts' messages", async () => {
      const a = await account();
      const client = await bindOk(a, 'bind_transceiver');
      const delivered = await submit(client);
      const waiting = await submit(client, { schedule_delivery_time: '000001000000000R' });
      await waitFor(async () => (await shown(a, delivered)).status === 'delivered');
      const done = await client.request('query_sm', { message_id: delivered.toUpperCase(), source_addr: 'Herald' });
      expect(done).toMatchObject({ command_status: ESME.ROK, message_id: delivered, message_state: 2, error_code: 0 });
      const statusTime = new Date((await shown(a, delivered)).statusTime as string);
      // SMPP's absolute time has tenths of a second.
      expect(Math.abs((done.final_date as unknown as Date).getTime() - statusTime.getTime())).toBeLessThan(100);
      const queued = await client.request('query_sm', { message_id: waiting });
      expect(queued).toMatchObject({ command_status: ESME.ROK, message_state: 1, final_date: '' });
      expect((await client.request('query_sm', { message_id: crypto.randomUUID() })).command_status).toBe(
        ESME.RQUERYFAIL,
      );
      expect((await client.request('query_sm', { message_id: 'not-an-id' })).command_status).toBe(ESME.RINVMSGID);
      const other = await bindOk(await account(), 'bind_transmitter');
      expect((await other.request('query_sm', { message_id: delivered })).command_status).toBe(ESME.RQUERYFAIL);
      const receiver = await bindOk(a, 'bind_receiver');
      expect((await receiver.request('query_sm', { message_id: delivered })).command_status).toBe(ESME.RINVBNDSTS);
    });

    it('cancels a message waiting in the queue as POST /api/v1/message/stop does, and nothing sent', async () => {
      const a = await account();
      const client = await bindOk(a, 'bind_transmitter');
      const waiting = await submit(client, { schedule_delivery_time: '000001000000000R' });
      const delivered = await submit(client);
      await waitFor(async () => (await shown(a, delivered)).status === 'delivered');
      expect((await client.request('cancel_sm', { message_id: waiting })).command_status).toBe(ESME.ROK);
      const stopped = await shown(a, waiting);
      expect(stopped).toMatchObject({ status: 'unsent', errorCode: 9003 });
      // Stopped once: a second cancel, a delivered message, an unknown id and another account's all fail.
      expect((await client.request('cancel_sm', { message_id: waiting })).command_status).toBe(ESME.RCANCELFAIL);
      expect((await client.request('cancel_sm', { message_id: delivered })).command_status).toBe(ESME.RCANCELFAIL);
      const unknown = await client.request('cancel_sm', { message_id: crypto.randomUUID() });
      expect(unknown.command_status).toBe(ESME.RCANCELFAIL);
      const mine = await submit(client, { schedule_delivery_time: '000001000000000R' });
      const other = await bindOk(await account(), 'bind_transmitter');
      expect((await other.request('cancel_sm', { message_id: mine })).command_status).toBe(ESME.RCANCELFAIL);
      expect((await shown(a, mine)).status).toBe('sending');
      // Without a message_id (every message from source_addr to destination_addr): not taken.
      const bySource = await client.request('cancel_sm', { source_addr: 'Herald', destination_addr: DELIVERED });
      expect(bySource.command_status).toBe(ESME.RINVMSGID);
      expect((await client.request('query_sm', { message_id: waiting })).message_state).toBe(8);
    });
  });

  it('counts binds, submits, deliver_sm and waiting receipts in herald_smpp_server_* metrics', async () => {
    const a = await account();
    const client = await bindOk(a, 'bind_transceiver');
    expect((await bind(keyIdOf(a.traffic), 'wrong123')).answer.command_status).toBe(ESME.RINVPASWD);
    const base = { destination_addr: DELIVERED, short_message: 'Hi', registered_delivery: 1 };
    expect((await client.submit({ ...base, source_addr: 'Nobody' })).command_status).toBe(ESME.RINVSRCADR);
    const taken = await client.submit({ ...base, source_addr: 'Herald' });
    await waitFor(() => client.receiptIds().includes(String(taken.message_id)), { timeoutMs: 30_000 });
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toMatch(/herald_smpp_server_binds\{type="transceiver"\} [1-9]/);
    expect(text).toMatch(/herald_smpp_server_bind_attempts_total\{outcome="bad_password"\} [1-9]/);
    expect(text).toMatch(/herald_smpp_server_submits_total\{outcome="accepted"\} [1-9]/);
    expect(text).toMatch(/herald_smpp_server_submits_total\{outcome="ESME_RINVSRCADR"\} [1-9]/);
    expect(text).toMatch(/herald_smpp_server_deliver_sm_total\{kind="receipt",outcome="acknowledged"\} [1-9]/);
    expect(text).toMatch(/herald_smpp_server_receipts_waiting \d+/);
  });

  describe('MO', () => {
    it('sends inbound SMS to the binds as deliver_sm when the account chose inboundVia smpp', async () => {
      const a = await account();
      await t.admin('PATCH', `/admin/v1/accounts/${a.id}`, { inbound: true, inboundVia: ['smpp'] });
      const number = '79031112233';
      const assigned = await t.admin('POST', `/admin/v1/accounts/${a.id}/inbound-numbers`, {
        channelType: 'SMS',
        number,
      });
      expect(assigned.status).toBe(201);
      const client = await bindOk(a, 'bind_transceiver');
      await t.simulators!.smsc.sendMo({ from: '79161230000', to: number, text: 'Hello from a subscriber' });
      await waitFor(() => client.delivered.some((p) => Number(p.esm_class) === 0), { timeoutMs: 30_000 });
      const mo = client.delivered.find((p) => Number(p.esm_class) === 0)!;
      expect(mo).toMatchObject({ source_addr: '79161230000', destination_addr: number });
      expect((mo.short_message as { message: string }).message).toBe('Hello from a subscriber');
      // An account without inboundVia smpp gets its inbound SMS by its inbound rules only.
      const other = await account();
      await t.admin('PATCH', `/admin/v1/accounts/${other.id}`, { inbound: true });
      await t.admin('POST', `/admin/v1/accounts/${other.id}/inbound-numbers`, {
        channelType: 'SMS',
        number: '79031112244',
      });
      const otherClient = await bindOk(other, 'bind_transceiver');
      await t.simulators!.smsc.sendMo({ from: '79161230000', to: '79031112244', text: 'Not for SMPP' });
      await t.simulators!.smsc.sendMo({ from: '79161230000', to: number, text: 'Second' });
      await waitFor(() => client.delivered.filter((p) => Number(p.esm_class) === 0).length === 2, {
        timeoutMs: 30_000,
      });
      expect(otherClient.delivered).toEqual([]);
    });
  });
});
