import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHeraldClient,
  type HeraldClient,
  HeraldApiError,
  HeraldNetworkError,
  type RequestBody,
} from '../../sdk/typescript/src/index.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

const SMS = (destination: string, text = 'Your code: 4321') =>
  ({ channelType: 'SMS', senderName: SENDER, destination, content: text }) as const;

/**
 * A fetch that hands each request to the real one and, while `lose` says so, throws away Herald's answer as a reset
 * connection would: the request was carried out and the client never heard. Records the requests it saw.
 */
function losingFetch(lose: (attempt: number) => boolean) {
  const seen: { method: string; idempotencyKey: string | null }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    seen.push({ method: init?.method ?? 'GET', idempotencyKey: new Headers(init?.headers).get('idempotency-key') });
    const response = await fetch(input, init);
    if (!lose(seen.length)) return response;
    await response.arrayBuffer();
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
  };
  return { fetchImpl, seen };
}

/** The TypeScript SDK (sdk/typescript) against a running Herald: sends, reads, refusals and safe retries. */
describe('the TypeScript SDK against Herald', () => {
  let t: TestHerald;
  let account: TestAccount;
  let client: HeraldClient;

  beforeAll(async () => {
    t = await startTestHerald('pglite');
    account = await t.createAccount({ channels: { VK: true }, senderNames: [['SMS', SENDER]] });
    client = createHeraldClient({ baseUrl: t.url, token: account.traffic, retry: { baseDelayMs: 5 } });
  });
  afterAll(async () => t?.close());

  const countTo = async (destination: string): Promise<number> =>
    (await client.messageList({ query: { destination } })).items.length;

  it('sends a batch and reads each message back (Basic, the whole token)', async () => {
    const sent = await client.messageSend({ body: [SMS('79161230001'), SMS('79161230002', 'Second')] });
    expect(sent.errors).toBe(false);
    expect(sent.items.map((item) => item.code)).toEqual([201, 201]);
    for (const [i, item] of sent.items.entries()) {
      const message = await client.messageGet({ params: { uuid: item.messageUuid! } });
      expect(message.messageUuid).toBe(item.messageUuid);
      expect(message.destination).toBe(`7916123000${i + 1}`);
      expect(message.channelType).toBe('SMS');
      expect(typeof message.status).toBe('string');
    }
    expect(await createHeraldClient({ baseUrl: `${t.url}/`, token: account.traffic }).pingGet()).toBeDefined();
  });

  it('sends a cascade and reads its chain (Bearer)', async () => {
    const bearer = createHeraldClient({ baseUrl: t.url, token: account.traffic, scheme: 'bearer' });
    const sent = await bearer.cascadeSend({
      body: [
        {
          destination: '79161230003',
          cascade: [
            { channelType: 'VK', senderName: 'club1', content: 'Your code: 4711', condition: 'not_delivered' },
            { channelType: 'SMS', senderName: SENDER, content: 'Your code: 4711' },
          ],
        },
      ],
    });
    expect(sent.errors).toBe(false);
    const root = sent.items[0]!.messageUuid!;
    const cascade = await bearer.cascadeGet({ params: { uuid: root } });
    expect(cascade.state).toBe('running');
    expect(cascade.stepCount).toBe(2);
    expect(cascade.steps[0]!.channelType).toBe('VK');
    expect(cascade.steps[0]!.message?.messageUuid).toBe(root);
  });

  it('throws a refused request as HeraldApiError with its status, code and msg', async () => {
    const refusal = await client.messageSend({ body: [SMS('79161230004'), SMS('12')] }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(HeraldApiError);
    expect(refusal).toMatchObject({ status: 422, code: 4220, msg: 'Invalid msisdn', operationId: 'messageSend' });
    expect((refusal as HeraldApiError).details.index).toBe(1);
    expect(await countTo('79161230004')).toBe(0);

    const system = createHeraldClient({ baseUrl: t.url, token: account.system });
    await expect(system.messageSend({ body: [SMS('79161230004')] })).rejects.toMatchObject({
      status: 403,
      code: 4030,
      msg: 'Access Denied',
    });
    const stranger = createHeraldClient({ baseUrl: t.url, token: Buffer.from('nokey:nosecret').toString('base64') });
    await expect(stranger.balanceGet()).rejects.toMatchObject({ status: 401, code: 4012, msg: 'Bad credentials' });
    await expect(client.messageGet({ params: { uuid: crypto.randomUUID() } })).rejects.toMatchObject({
      status: 404,
      code: 4040,
    });
  });

  it('retries a send whose answer was lost with the same Idempotency-Key: one message, the first answer', async () => {
    const { fetchImpl, seen } = losingFetch((attempt) => attempt === 1);
    const retrying = createHeraldClient({
      baseUrl: t.url,
      token: account.traffic,
      fetch: fetchImpl,
      retry: { baseDelayMs: 5 },
    });
    const sent = await retrying.messageSend({ body: [SMS('79161230005')] });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
    expect(await countTo('79161230005')).toBe(1);
    expect((await client.messageList({ query: { destination: '79161230005' } })).items[0]!.messageUuid).toBe(
      sent.items[0]!.messageUuid,
    );

    // A key of the caller's own is sent as given, and a cascade is retried the same way.
    const again = losingFetch((attempt) => attempt === 1);
    const cascades = createHeraldClient({
      baseUrl: t.url,
      token: account.traffic,
      fetch: again.fetchImpl,
      retry: { baseDelayMs: 5 },
    });
    const body: RequestBody<'cascadeSend'> = [
      { destination: '79161230006', cascade: [{ channelType: 'SMS', senderName: SENDER, content: 'Hi' }] },
    ] as const;
    const cascade = await cascades.cascadeSend({ body, idempotencyKey: 'order-1024' });
    expect(again.seen.map((s) => s.idempotencyKey)).toEqual(['order-1024', 'order-1024']);
    expect(await countTo('79161230006')).toBe(1);
    expect((await client.cascadeSend({ body, idempotencyKey: 'order-1024' })).items).toEqual(cascade.items);
  });

  it('never repeats a send without a key: the lost answer is a HeraldNetworkError', async () => {
    const { fetchImpl, seen } = losingFetch(() => true);
    const once = createHeraldClient({
      baseUrl: t.url,
      token: account.traffic,
      fetch: fetchImpl,
      autoIdempotencyKey: false,
    });
    const failure = await once.messageSend({ body: [SMS('79161230007')] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HeraldNetworkError);
    expect(seen).toEqual([{ method: 'POST', idempotencyKey: null }]);
    // Herald did store it: sent again, it would have gone twice.
    expect(await countTo('79161230007')).toBe(1);
  });

  it('retries a GET after a 503 no sooner than its Retry-After', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1)
        return new Response('{"error":{"code":5031,"msg":"Service temporarily unavailable"}}', {
          status: 503,
          headers: { 'content-type': 'application/json', 'retry-after': '1' },
        });
      return fetch(input, init);
    };
    const retrying = createHeraldClient({
      baseUrl: t.url,
      token: account.traffic,
      fetch: flaky,
      retry: { baseDelayMs: 5 },
    });
    const started = performance.now();
    const balance = await retrying.balanceGet();
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(calls).toBe(2);
    expect(balance).toBeTypeOf('object');
  });
});
