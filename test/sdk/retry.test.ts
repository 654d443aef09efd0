import { describe, expect, it } from 'vitest';
import { isRetryable, parseRetryAfter, retryDelayMs } from '../../sdk/typescript/src/retry.js';
import { createHeraldClient, HeraldApiError, HeraldNetworkError } from '../../sdk/typescript/src/index.js';

const POLICY = { attempts: 3, baseDelayMs: 100, maxDelayMs: 2000 };

/** A fetch that answers each call with the next of `answers` and records what it was asked. */
function scripted(answers: readonly (() => Response)[]) {
  const seen: { method: string; url: string; headers: Headers }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    seen.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers) });
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
    return answer();
  };
  return { fetchImpl, seen };
}

const error =
  (status: number, code: number, msg: string, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ error: { code, msg } }), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    });
const ok = (body: unknown) => () =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

describe('the SDK retry policy', () => {
  it('retries no answer, 5xx but 501, 429, 408 and a key still in progress; nothing else', () => {
    expect(isRetryable({ kind: 'network' })).toBe(true);
    for (const status of [500, 502, 503, 504, 429, 408]) expect(isRetryable({ kind: 'answer', status })).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422, 501])
      expect(isRetryable({ kind: 'answer', status })).toBe(false);
    const inProgress = 'A request with Idempotency-Key k is still in progress: retry later';
    expect(isRetryable({ kind: 'answer', status: 409, code: 4090, msg: inProgress })).toBe(true);
    const conflict = 'Idempotency-Key k was used with a different request body';
    expect(isRetryable({ kind: 'answer', status: 409, code: 4090, msg: conflict })).toBe(false);
  });

  it('backs off exponentially with jitter, takes Retry-After as a floor, and gives up on a longer one', () => {
    expect(retryDelayMs(POLICY, 1, undefined, () => 0)).toBe(100);
    expect(retryDelayMs(POLICY, 2, undefined, () => 0)).toBe(200);
    expect(retryDelayMs(POLICY, 2, undefined, () => 1)).toBe(300);
    expect(retryDelayMs(POLICY, 10, undefined, () => 0)).toBe(2000);
    expect(retryDelayMs(POLICY, 1, 1, () => 0)).toBe(1000);
    expect(retryDelayMs(POLICY, 1, 3, () => 0)).toBeUndefined();
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('Sun, 29 Nov 2026 09:00:05 GMT', Date.parse('2026-11-29T09:00:00Z'))).toBe(5);
  });

  it('retries a keyed POST on 429 and 503, never a POST without a key nor an operation without keys', async () => {
    const busy = scripted([error(429, 4290, 'Too many requests; retry after 0 s', { 'retry-after': '0' }), ok({})]);
    const client = createHeraldClient({
      baseUrl: 'http://herald.test',
      token: 'dG9rZW4=',
      fetch: busy.fetchImpl,
      retry: { baseDelayMs: 1 },
    });
    await client.messageSend({ body: [], idempotencyKey: 'k1' });
    expect(busy.seen.map((s) => s.headers.get('idempotency-key'))).toEqual(['k1', 'k1']);
    expect(busy.seen[0]!.headers.get('authorization')).toBe('Basic dG9rZW4=');

    const down = scripted([error(503, 5031, 'Service temporarily unavailable')]);
    const once = createHeraldClient({
      baseUrl: 'http://herald.test',
      token: 'dG9rZW4=',
      fetch: down.fetchImpl,
      autoIdempotencyKey: false,
      retry: { baseDelayMs: 1 },
    });
    await expect(once.messageSend({ body: [] })).rejects.toMatchObject({ status: 503, code: 5031 });
    expect(down.seen).toHaveLength(1);
    // verifierCreate takes no Idempotency-Key (the document lists none): sent once whatever the client's setting.
    const creating = createHeraldClient({ baseUrl: 'http://herald.test', token: 'dG9rZW4=', fetch: down.fetchImpl });
    await expect(creating.verifierCreate({ body: {} as never })).rejects.toBeInstanceOf(HeraldApiError);
    expect(down.seen).toHaveLength(2);
    expect(down.seen[1]!.headers.get('idempotency-key')).toBeNull();

    // A GET gives up after its attempts, with the last answer.
    const failing = scripted([error(502, 5000, 'Bad gateway')]);
    const reader = createHeraldClient({
      baseUrl: 'http://herald.test',
      token: 'dG9rZW4=',
      fetch: failing.fetchImpl,
      retry: { attempts: 3, baseDelayMs: 1 },
    });
    await expect(reader.messageGet({ params: { uuid: 'a b' } })).rejects.toMatchObject({ status: 502 });
    expect(failing.seen.map((s) => s.url)).toEqual(Array(3).fill('http://herald.test/api/v1/message/a%20b'));
  });

  it("reads an error that is not Herald's body, and a CSV answer as text", async () => {
    const proxy = scripted([() => new Response('<html>Bad Gateway</html>', { status: 502 })]);
    const client = createHeraldClient({
      baseUrl: 'http://herald.test',
      token: 't',
      fetch: proxy.fetchImpl,
      retry: { attempts: 1 },
    });
    await expect(client.balanceGet()).rejects.toMatchObject({ status: 502, code: undefined, msg: 'HTTP 502' });
    const csv = scripted([() => new Response('number\n79161234567\n', { headers: { 'content-type': 'text/csv' } })]);
    const exporter = createHeraldClient({
      baseUrl: 'http://herald.test',
      token: 't',
      fetch: csv.fetchImpl,
      scheme: 'bearer',
    });
    expect(await exporter.stopListExport()).toBe('number\n79161234567\n');
    expect(csv.seen[0]!.headers.get('authorization')).toBe('Bearer t');
  });

  it('ends an attempt after timeoutMs as a HeraldNetworkError, and an aborted call as its caller did', async () => {
    let calls = 0;
    const silent: typeof fetch = (_input, init) => {
      calls += 1;
      return new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
      );
    };
    const client = createHeraldClient({
      baseUrl: 'http://herald.test',
      token: 't',
      fetch: silent,
      timeoutMs: 20,
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    const failure = await client.balanceGet().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HeraldNetworkError);
    expect((failure as HeraldNetworkError).cause).toMatchObject({ name: 'TimeoutError' });
    expect(calls).toBe(2);

    const controller = new AbortController();
    const patient = createHeraldClient({ baseUrl: 'http://herald.test', token: 't', fetch: silent });
    const call = patient.balanceGet({ signal: controller.signal });
    controller.abort(new Error('the caller gave up'));
    await expect(call).rejects.toThrow('the caller gave up');
    expect(calls).toBe(3);
  });
});
