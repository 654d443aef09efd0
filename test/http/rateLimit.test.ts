import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rateLimit.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald } from '../helpers/testHerald.js';

describe('token buckets', () => {
  it('allows a burst, then one request per refill, per key', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 4, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('a'))).toEqual([0, 0, 0, 0]);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0);
    now += 500; // half a second: one more request
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    now += 10_000; // refilled to the burst, never beyond
    expect([1, 2, 3, 4, 5].map(() => limiter.take('a'))).toEqual([0, 0, 0, 0, 1]);
  });

  it('says how long to wait in whole seconds, and limits nothing at rate 0', () => {
    let now = 0;
    const slow = new RateLimiter(0.1, 1, () => now);
    expect(slow.take('k')).toBe(0);
    expect(slow.take('k')).toBe(10);
    now += 5000;
    expect(slow.blockedFor('k')).toBe(5);
    expect(new RateLimiter(0, 0).take('k')).toBe(0);
  });
});

describe('refunds', () => {
  it('gives back one taken request, never beyond the burst', () => {
    const limiter = new RateLimiter(1, 2, () => 0);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 1]);
    limiter.refund('a');
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 1]);
    limiter.refund('b');
    limiter.refund('b');
    expect([limiter.take('b'), limiter.take('b'), limiter.take('b')]).toEqual([0, 0, 1]);
  });
});

describe.each(ENGINES)('rate limits over HTTP (%s)', (engine) => {
  it('answers 429 4290 with Retry-After once an account exceeds its rate, leaving other accounts alone', async () => {
    const t = await startTestHerald(engine, { env: { HERALD_RATE_LIMIT: '2' } });
    try {
      const busy = await t.createAccount();
      const quiet = await t.createAccount();
      const replies = [];
      for (let i = 0; i < 6; i++) replies.push(await t.call('GET', '/api/v1/balance', { token: busy.system }));
      // A burst of twice the rate, then refusals.
      expect(replies.slice(0, 4).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const refused = replies.at(-1)!;
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: { code: 4290, msg: 'Too many requests; retry after 1 s' } });
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await t.call('GET', '/api/v1/balance', { token: quiet.system })).status).toBe(200);
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/^herald_rate_limited_total\{kind="requests"\} [1-9]/m);
    } finally {
      await t.close();
    }
  });

  it('refuses an address that keeps presenting bad tokens, even with a good one, until it has waited', async () => {
    const t = await startTestHerald(engine, { env: { HERALD_AUTH_FAILURE_LIMIT: '3' } });
    try {
      const account = await t.createAccount();
      const bad = Buffer.from('t2_nosuchkey:nosuchsecret').toString('base64');
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await t.call('GET', '/api/v1/balance', { token: bad })).body.error.code);
      expect(codes).toEqual([4012, 4012, 4012, 4290]);
      const good = await t.call('GET', '/api/v1/balance', { token: account.system });
      expect(good.status).toBe(429);
      expect(Number(good.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Bad operator tokens count the same way.
      expect((await t.admin('GET', '/admin/v1/accounts')).status).toBe(429);
    } finally {
      await t.close();
    }
  });
  it('behind a trusted proxy, counts failed authentications per forwarded client address', async () => {
    const t = await startTestHerald(engine, {
      env: { HERALD_AUTH_FAILURE_LIMIT: '2', HERALD_TRUST_PROXY: '127.0.0.1' },
    });
    try {
      const account = await t.createAccount();
      const bad = Buffer.from('t2_nosuchkey:nosuchsecret').toString('base64');
      const from = (address: string) => ({ 'x-forwarded-for': address });
      const codes = [];
      for (let i = 0; i < 3; i++)
        codes.push(
          (await t.call('GET', '/api/v1/balance', { token: bad, headers: from('203.0.113.7') })).body.error.code,
        );
      expect(codes).toEqual([4012, 4012, 4290]);
      // Another client behind the same proxy is not held to the first one's failures.
      expect(
        (await t.call('GET', '/api/v1/balance', { token: account.system, headers: from('203.0.113.8') })).status,
      ).toBe(200);
      expect(
        (await t.call('GET', '/api/v1/balance', { token: account.system, headers: from('203.0.113.7') })).status,
      ).toBe(429);
    } finally {
      await t.close();
    }
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address', async () => {
    const t = await startTestHerald(engine, {
      env: { HERALD_AUTH_FAILURE_LIMIT: '2', HERALD_TRUST_PROXY: '127.0.0.1' },
    });
    try {
      const account = await t.createAccount();
      const bad = Buffer.from('t2_nosuchkey:nosuchsecret').toString('base64');
      const status = async (address: string, token: string) =>
        (await t.call('GET', '/api/v1/balance', { token, headers: { 'x-forwarded-for': address } })).status;
      // Two addresses of one /64 share its two failures; the next /64 has its own.
      expect(await status('2001:db8:1:2::1', bad)).toBe(401);
      expect(await status('2001:db8:1:2:ffff:ffff:ffff:fffe', bad)).toBe(401);
      expect(await status('2001:0db8:0001:0002:0:0:0:9', account.system)).toBe(429);
      expect(await status('2001:db8:1:3::1', account.system)).toBe(200);
      expect(await status('::ffff:192.0.2.9', bad)).toBe(401);
      expect(await status('192.0.2.9', bad)).toBe(401);
      expect(await status('::ffff:c000:209', account.system)).toBe(429);
      expect(await status('192.0.2.10', account.system)).toBe(200);
    } finally {
      await t.close();
    }
  });
});
