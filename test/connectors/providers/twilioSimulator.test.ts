import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listenOn } from '../../../src/simulators/simulatorServers.js';
import { parseTwiml, TwilioSimulator } from '../../helpers/providers/twilioSimulator.js';
import { call } from '../../helpers/http.js';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token';
const BASIC = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;

/** A receiver of status callbacks: every form POST it took, with its signature header and its URL. */
interface Received {
  readonly url: string;
  readonly signature: string | undefined;
  readonly params: Record<string, string>;
}

describe('the Twilio simulator speaks the REST API as Twilio documents it', () => {
  const twilio = new TwilioSimulator({ accountSid: SID, authToken: TOKEN, delayMs: 5 });
  const received: Received[] = [];
  let receiver: Server;
  let receiverUrl = '';
  /** Checks waiting for callbacks, run again at each one the receiver takes. */
  const waiting = new Set<() => void>();
  const untilReceived = (check: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the callbacks awaited did not come within 10 s')), 10_000);
      const run = () => {
        if (!check()) return;
        clearTimeout(timer);
        waiting.delete(run);
        resolve();
      };
      waiting.add(run);
      run();
    });

  beforeAll(async () => {
    await twilio.start();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          url: `${receiverUrl}${req.url}`,
          signature: req.headers['x-twilio-signature'] as string | undefined,
          params: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
        });
        res.writeHead(200).end();
        for (const check of waiting) check();
      });
    });
    receiverUrl = `http://127.0.0.1:${await listenOn(receiver)}`;
  });
  afterAll(async () => {
    await twilio.stop();
    await closeServer(receiver);
  });

  const post = (resource: 'Messages' | 'Calls', form: Record<string, string | string[]>, auth = BASIC) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form))
      for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    return call(twilio.url, 'POST', `/2010-04-01/Accounts/${SID}/${resource}.json`, {
      auth,
      rawBody: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  };

  it("signs as Twilio's published example does", () => {
    // https://www.twilio.com/docs/usage/webhooks/webhooks-security: auth token 12345, this URL and these parameters.
    const params = {
      CallSid: 'CA1234567890ABCDE',
      Caller: '+12349013030',
      Digits: '1234',
      From: '+12349013030',
      To: '+18005551212',
    };
    expect(TwilioSimulator.signature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe(
      '0/KCTR6DLpKmkAf8muzZqo1nDgQ=',
    );
  });

  it('creates a Message (201, queued, price null), then posts signed sent and delivered callbacks', async () => {
    const callback = `${receiverUrl}/status?connector=a`;
    const answer = await post('Messages', {
      To: '+79161234560',
      From: 'Herald',
      Body: 'Код 1234',
      StatusCallback: callback,
      ValidityPeriod: '600',
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      status: 'queued',
      to: '+79161234560',
      from: 'Herald',
      body: 'Код 1234',
      price: null,
      num_segments: '1',
      direction: 'outbound-api',
    });
    await untilReceived(() => received.filter((r) => r.params.MessageSid === answer.body.sid).length === 2);
    const mine = received.filter((r) => r.params.MessageSid === answer.body.sid);
    expect(mine.map((r) => r.params.MessageStatus)).toEqual(['sent', 'delivered']);
    for (const r of mine) {
      expect(r.url).toBe(callback);
      expect(r.signature).toBe(TwilioSimulator.signature(TOKEN, callback, r.params));
    }
    expect(mine[1]!.params).toMatchObject({ AccountSid: SID, To: '+79161234560', RawDlrDoneDate: /^\d{10}$/ });
  });

  it('reports an undelivered message with ErrorCode 30003', async () => {
    const answer = await post('Messages', {
      To: '+79161234567',
      From: '+15005550006',
      Body: 'x',
      StatusCallback: `${receiverUrl}/s`,
    });
    await untilReceived(() => received.some((r) => r.params.MessageSid === answer.body.sid && r.params.ErrorCode));
    const last = received.filter((r) => r.params.MessageSid === answer.body.sid).at(-1)!;
    expect(last.params).toMatchObject({ MessageStatus: 'undelivered', ErrorCode: '30003' });
  });

  it.each([
    [{ From: 'x', Body: 'b' }, 400, 21604],
    [{ To: '79161234560', From: 'x', Body: 'b' }, 400, 21211],
    [{ To: '+79161234568', From: 'x', Body: 'b' }, 400, 21211],
    [{ To: '+79161234560', Body: 'b' }, 400, 21603],
    [{ To: '+79161234560', From: 'far too long sender', Body: 'b' }, 400, 21212],
    [{ To: '+79161234560', From: 'x' }, 400, 21602],
    [{ To: '+79161234560', From: 'x', Body: 'я'.repeat(1601) }, 400, 21617],
    [{ To: '+79161234560', From: 'x', Body: 'b', ValidityPeriod: '36001' }, 400, 21624],
    [{ To: '+79161234560', From: 'x', Body: 'b', ValidityPeriod: '0' }, 400, 21624],
    [{ To: '+79161234560', From: 'x', Body: 'b', StatusCallback: 'http://bad_host/s' }, 400, 21609],
  ])('refuses the Message %j with %i and code %i', async (form, status, code) => {
    const answer = await post('Messages', form);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({
      code,
      message: expect.any(String),
      more_info: `https://www.twilio.com/docs/errors/${code}`,
      status,
    });
  });

  it('takes 1600 characters of Body and 36000 seconds of ValidityPeriod', async () => {
    const answer = await post('Messages', {
      To: '+79161234560',
      From: 'x',
      Body: 'я'.repeat(1600),
      ValidityPeriod: '36000',
    });
    expect(answer.status).toBe(201);
    expect(answer.body.num_segments).toBe('24');
  });

  it('refuses wrong credentials (20003, 401), another account (20404), a JSON body (21604)', async () => {
    const wrong = `Basic ${Buffer.from(`${SID}:nope`).toString('base64')}`;
    expect((await post('Messages', { To: '+79161234560', From: 'x', Body: 'b' }, wrong)).body).toMatchObject({
      code: 20003,
      status: 401,
    });
    const other = await call(twilio.url, 'POST', '/2010-04-01/Accounts/ACother/Messages.json', {
      auth: BASIC,
      rawBody: 'To=%2B79161234560&From=x&Body=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(other.body).toMatchObject({ code: 20404, status: 404 });
    const json = await call(twilio.url, 'POST', `/2010-04-01/Accounts/${SID}/Messages.json`, {
      auth: BASIC,
      body: { To: '+79161234560', From: 'x', Body: 'b' },
    });
    expect(json.body).toMatchObject({ code: 21604, status: 400 });
  });

  it('refuses once when told: 429 (20429) with or without Retry-After, and 503', async () => {
    const form = { To: '+79161234560', From: 'x', Body: 'b' };
    twilio.failNext({ status: 429, retryAfterSeconds: 7 });
    twilio.failNext({ status: 429 });
    twilio.failNext({ status: 503 });
    const first = await post('Messages', form);
    expect(first).toMatchObject({ status: 429, body: { code: 20429, status: 429 } });
    expect(first.headers.get('retry-after')).toBe('7');
    const second = await post('Messages', form);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBeNull();
    expect((await post('Messages', form)).body).toMatchObject({ code: 20500, status: 503 });
    expect((await post('Messages', form)).status).toBe(201);
  });

  it('creates a Call from inline TwiML, reads its <Say>, and posts only the completed event by default', async () => {
    const callback = `${receiverUrl}/calls`;
    const answer = await post('Calls', {
      To: '+79161234561',
      From: '+15005550006',
      Twiml: '<Response><Say language="ru-RU">Код &lt;1234&gt; &amp; всё</Say></Response>',
      StatusCallback: callback,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ sid: expect.stringMatching(/^CA[0-9a-f]{32}$/), status: 'queued' });
    expect(twilio.requests.at(-1)!.said).toEqual(['Код <1234> & всё']);
    await untilReceived(() => received.some((r) => r.params.CallSid === answer.body.sid));
    const mine = received.filter((r) => r.params.CallSid === answer.body.sid);
    expect(mine.map((r) => r.params.CallStatus)).toEqual(['completed']);
    expect(mine[0]!.signature).toBe(TwilioSimulator.signature(TOKEN, callback, mine[0]!.params));
  });

  it('posts every subscribed call event; a call not answered ends no-answer', async () => {
    const answer = await post('Calls', {
      To: '+79161234567',
      From: '+15005550006',
      Twiml: '<Response><Say>x</Say></Response>',
      StatusCallback: `${receiverUrl}/calls`,
      StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    });
    await untilReceived(() => received.filter((r) => r.params.CallSid === answer.body.sid).length === 3);
    const statuses = received.filter((r) => r.params.CallSid === answer.body.sid).map((r) => r.params.CallStatus);
    expect(statuses).toEqual(['initiated', 'ringing', 'no-answer']);
  });

  it.each([
    [{ From: '+15005550006', Twiml: '<Response/>' }, 21201],
    [{ To: '+79161234560', Twiml: '<Response/>' }, 21213],
    [{ To: '+79161234560', From: 'voicecode', Twiml: '<Response/>' }, 21212],
    [{ To: '+79161234560', From: '+15005550006' }, 21200],
    [{ To: '+79161234560', From: '+15005550006', Twiml: `<Response><Say>${'x'.repeat(4000)}</Say></Response>` }, 32018],
    [{ To: '+79161234560', From: '+15005550006', Twiml: '<Response><Say>a < b</Say></Response>' }, 12100],
    [{ To: '+79161234560', From: '+15005550006', Twiml: '<Response><Say>a & b</Say></Response>' }, 12100],
    [{ To: '+79161234560', From: '+15005550006', Twiml: '<Response><Say>a</Response>' }, 12100],
    [{ To: '+79161234560', From: '+15005550006', Twiml: '<Response/>', StatusCallbackEvent: 'done' }, 21626],
  ])('refuses the Call %j with code %i', async (form, code) => {
    const answer = await post('Calls', form);
    expect(answer.body).toMatchObject({ code, status: 400 });
  });

  it('reads TwiML as an XML parser does', () => {
    expect(parseTwiml('<?xml version="1.0" encoding="UTF-8"?>\n<Response><Say>a&#39;b</Say></Response>')).toEqual([
      "a'b",
    ]);
    expect(parseTwiml('<Say>a</Say>')).toBe('the root element must be Response');
    expect(parseTwiml('<Response><Say language=ru>a</Say></Response>')).toMatch(/malformed/);
  });
});
