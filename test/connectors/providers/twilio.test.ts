import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/config/index.js';
import { parseConfigFile } from '../../../src/config/configFile.js';
import { TestClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { call } from '../../helpers/http.js';
import { TwilioSimulator, TWILIO_UNDELIVERED_ERROR } from '../../helpers/providers/twilioSimulator.js';
import { untilWritten } from '../../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../../helpers/testHerald.js';
import { messageRows } from '../../helpers/messageRows.js';

const ACCOUNT_SID = 'AC5ef8732a3c49700934481addd5ce1659';
const AUTH_TOKEN = '2c7e1a3b9d4f6e8a0b1c2d3e4f5a6b7c';
/** The caller id of the voice calls: a Twilio number (VOICECODE's sender name is always "voicecode"). */
const CALLER_ID = '+15005550006';
const SMS_ID = 'twilio-sms';
const VOICE_ID = 'twilio-voice';
const SENDER = 'Herald';

interface Row {
  status: string;
  error_code: number | null;
  due_at: Date | string | null;
  lease_expires_at: Date | string | null;
}

/**
 * The profiles twilio-sms and twilio-voice (profiles/) on the SMS and VOICECODE routes, against the Twilio
 * simulator: read as HERALD_CONFIG is, so that the profiles complete the connectors. Their {statusUrl} is Herald's
 * own address, once it listens (no publicUrl).
 */
function withTwilio(file: ConfigFile, baseUrl: string): ConfigFile {
  const secrets = { ACCOUNT_SID, AUTH_TOKEN };
  return parseConfigFile({
    connectors: [
      ...file.connectors,
      { id: SMS_ID, type: 'http', profile: 'twilio-sms', baseUrl, secrets },
      { id: VOICE_ID, type: 'http', profile: 'twilio-voice', baseUrl, secrets, vars: { FROM: CALLER_ID } },
    ],
    routes: file.routes.map((r) =>
      r.channel === 'SMS'
        ? { ...r, connectors: [SMS_ID] }
        : r.channel === 'VOICECODE'
          ? { ...r, connectors: [VOICE_ID] }
          : r,
    ),
  });
}

describe('the Twilio profiles, read at start-up', () => {
  const voice = (extra: Record<string, unknown>) => () =>
    parseConfigFile({
      connectors: [
        { id: VOICE_ID, type: 'http', profile: 'twilio-voice', baseUrl: 'https://api.twilio.com', ...extra },
      ],
      routes: [],
    });

  it('stop start-up without the caller id or a secret, naming the key', () => {
    expect(voice({ secrets: { ACCOUNT_SID, AUTH_TOKEN } })).toThrow(
      "connectors[0].request.body.From: {var:FROM} names no key of the connector's vars",
    );
    expect(voice({ secrets: { ACCOUNT_SID }, vars: { FROM: CALLER_ID } })).toThrow(
      "connectors[0].request.auth.basic.password: {secret:AUTH_TOKEN} names no key of the connector's secrets",
    );
    expect(voice({ secrets: { ACCOUNT_SID, AUTH_TOKEN }, vars: { FROM: CALLER_ID } })).not.toThrow();
  });
});

describe.each(ENGINES)('the Twilio profiles, SMS and VOICECODE, against a Twilio simulator (%s)', (engine) => {
  // Herald's clock stands still: a refused message's next attempt is at an exact time, which the test moves to.
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const twilio = new TwilioSimulator({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, delayMs: 10 });
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    await twilio.start();
    t = await startTestHerald(engine, {
      clock,
      delivery: { delayMs: 10, configure: (file) => withTwilio(file, twilio.url) },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await twilio.stop();
  });

  const row = async (id: string): Promise<Row> =>
    (
      await t.testDb.db.query<Row>(
        `SELECT status, error_code, due_at, lease_expires_at FROM ${messageRows()} WHERE id = $1`,
        [id],
      )
    )[0]!;
  const get = async (id: string) =>
    (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;
  /**
   * Waits until the message is `status`, after each batch of the writer. A status callback that came before its
   * submission was recorded waits as an orphan for a job these tests do not start: it is run here, as a worker runs
   * it every 5 s.
   */
  const untilStatus = async (id: string, status: string): Promise<Record<string, any>> => {
    let last: Record<string, any> | undefined;
    return untilWritten(
      t.herald,
      async () => {
        last = await get(id);
        if (last.status === status) return last;
        if (last.status === 'sent') await t.herald.jobs!.run('match-orphan-receipts');
        return false;
      },
      { describe: () => `message ${JSON.stringify(last)}` },
    );
  };
  const sms = (destination: string, content: string, extra: Record<string, unknown> = {}) =>
    t.send(account.traffic, [{ channelType: 'SMS', senderName: SENDER, destination, content, ...extra }]);
  const voice = (destination: string, text: string) =>
    t.send(account.traffic, [
      { channelType: 'VOICECODE', senderName: 'voicecode', destination, content: { contentType: 'text', text } },
    ]);
  const requestTo = (to: string) => twilio.requests.filter((r) => r.params.To === to);

  it('sends an SMS as a form with Basic auth, reads its sid, takes signed status callbacks: delivered', async () => {
    const [id] = await sms('79161000010', 'Ваш код 1234', { ttl: 600 });
    const m = await untilStatus(id!, 'delivered');
    const [request] = requestTo('+79161000010');
    expect(request).toMatchObject({ resource: 'Messages', status: 201 });
    expect(request!.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(request!.params).toEqual({
      To: '+79161000010',
      From: SENDER,
      Body: 'Ваш код 1234',
      StatusCallback: `${t.url}/webhooks/http/${SMS_ID}`,
      ValidityPeriod: '600',
    });
    // Both callbacks (sent, then delivered) were answered 200.
    const callbacks = await twilio.untilCallbacks((c) => c.params.MessageSid === request!.sid, 2);
    expect(callbacks.map((c) => [c.params.MessageStatus, c.status])).toEqual([
      ['sent', 200],
      ['delivered', 200],
    ]);
    expect(m.errorCode ?? null).toBeNull();
  });

  it("records an undelivered SMS with Twilio's ErrorCode", async () => {
    const [id] = await sms('79161000017', 'Lost');
    const m = await untilStatus(id!, 'undelivered');
    expect(m.errorCode).toBe(TWILIO_UNDELIVERED_ERROR);
  });

  it('clamps the time left to ValidityPeriod 36000, the most Twilio takes', async () => {
    const [id] = await sms('79161000020', 'Long-lived', { ttl: 86_400 });
    await untilStatus(id!, 'delivered');
    expect(requestTo('+79161000020')[0]!.params.ValidityPeriod).toBe('36000');
  });

  it('maps a refusal of the destination (21211) to unsent with its code', async () => {
    const [id] = await sms('79161000018', 'Refused');
    await untilWritten(t.herald, async () => (await row(id!)).status === 'unsent');
    expect(await row(id!)).toMatchObject({ status: 'unsent', error_code: 21211 });
    expect(requestTo('+79161000018')).toMatchObject([{ status: 400, code: 21211 }]);
  });

  it('tries a 429 (20429) again after its Retry-After, and after the default pause without one', async () => {
    for (const [destination, retryAfterSeconds, pauseMs] of [
      ['79161000030', 30, 30_000],
      ['79161000040', undefined, 5_000],
    ] as const) {
      twilio.failNext(retryAfterSeconds === undefined ? { status: 429 } : { status: 429, retryAfterSeconds });
      const refusedAt = clock.now().getTime();
      const [id] = await sms(destination, 'Rate limited');
      const waiting = await untilWritten(t.herald, async () => {
        const r = await row(id!);
        return r.status === 'sending' && !r.lease_expires_at && r.due_at !== null && r;
      });
      // The clock stands still: the next attempt is due exactly the pause after the refusal.
      expect(new Date(waiting.due_at!).getTime() - refusedAt).toBe(pauseMs);
      expect(requestTo(`+${destination}`)).toMatchObject([{ status: 429, code: 20429 }]);
      clock.set(new Date(waiting.due_at!));
      await untilStatus(id!, 'delivered');
      expect(requestTo(`+${destination}`).map((r) => r.status)).toEqual([429, 201]);
    }
  });

  it('tries a 503 again', async () => {
    twilio.failNext({ status: 503 });
    const [id] = await sms('79161000050', 'Outage');
    const waiting = await untilWritten(t.herald, async () => {
      const r = await row(id!);
      return r.status === 'sending' && !r.lease_expires_at && r.due_at !== null && r;
    });
    clock.set(new Date(waiting.due_at!));
    await untilStatus(id!, 'delivered');
    expect(requestTo('+79161000050').map((r) => r.status)).toEqual([503, 201]);
  });

  it('refuses a status callback signed wrongly, or for another URL, with 401', async () => {
    const params = { MessageSid: 'SM00000000000000000000000000000000', MessageStatus: 'delivered' };
    const url = `${t.url}/webhooks/http/${SMS_ID}`;
    const post = (signature: string) =>
      call(t.url, 'POST', `/webhooks/http/${SMS_ID}`, {
        rawBody: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      });
    expect((await post(TwilioSimulator.signature('another token', url, params))).status).toBe(401);
    expect((await post(TwilioSimulator.signature(AUTH_TOKEN, `${url}?x=1`, params))).status).toBe(401);
    const unsigned = await call(t.url, 'POST', `/webhooks/http/${SMS_ID}`, {
      rawBody: new URLSearchParams(params).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unsigned.status).toBe(401);
    // Signed as Twilio signs, it is taken (an id Herald does not know changes nothing).
    expect((await post(TwilioSimulator.signature(AUTH_TOKEN, url, params))).status).toBe(200);
  });

  it('calls with inline TwiML saying the text XML-escaped, from the caller id set: completed = delivered', async () => {
    const text = 'Код авторизации от A&B <Shop>: 1234.';
    const [id] = await voice('79162000010', text);
    await untilStatus(id!, 'delivered');
    const [request] = requestTo('+79162000010');
    expect(request).toMatchObject({ resource: 'Calls', status: 201, said: [text] });
    expect(request!.params).toEqual({
      To: '+79162000010',
      From: CALLER_ID,
      Twiml: '<Response><Say language="ru-RU">Код авторизации от A&amp;B &lt;Shop&gt;: 1234.</Say></Response>',
      StatusCallback: `${t.url}/webhooks/http/${VOICE_ID}`,
    });
    const callbacks = await twilio.untilCallbacks((c) => c.params.CallSid === request!.sid, 1);
    expect(callbacks.map((c) => [c.params.CallStatus, c.status])).toEqual([['completed', 200]]);
  });

  it('records a call nobody answered as undelivered', async () => {
    const [id] = await voice('79162000017', 'Код авторизации от Shop: 5678.');
    await untilStatus(id!, 'undelivered');
    const [callback] = await twilio.untilCallbacks((c) => c.params.To === '+79162000017', 1);
    expect(callback!.params.CallStatus).toBe('no-answer');
  });

  it('maps a refused call (21211) to unsent', async () => {
    const [id] = await voice('79162000018', 'Код авторизации от Shop: 5678.');
    await untilWritten(t.herald, async () => (await row(id!)).status === 'unsent');
    expect(await row(id!)).toMatchObject({ status: 'unsent', error_code: 21211 });
  });
});
