import { describe, expect, it } from 'vitest';
import { RecentClicks } from '../../src/links/recentClicks.js';
import { TestClock } from '../helpers/clock.js';

describe('recent clicks', () => {
  const recorder = () => {
    const recorded: string[] = [];
    return { recorded, record: (code: string) => async () => (recorded.push(code), `https://x.example/${code}`) };
  };

  it('records a (link, address) once a minute and answers its repeats with the first location', async () => {
    const clock = new TestClock();
    const recent = new RecentClicks(clock);
    const { recorded, record } = recorder();
    expect(await recent.follow('a', '10.0.0.1', record('a'))).toBe('https://x.example/a');
    expect(await recent.follow('a', '10.0.0.1', record('a'))).toBe('https://x.example/a');
    await recent.follow('a', '10.0.0.2', record('a'));
    await recent.follow('b', '10.0.0.1', record('b'));
    expect(recorded).toEqual(['a', 'a', 'b']);
    clock.advance(60_000);
    await recent.follow('a', '10.0.0.1', record('a'));
    expect(recorded).toEqual(['a', 'a', 'b', 'a']);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as IPv4, like the failure limit', async () => {
    const recent = new RecentClicks(new TestClock());
    const { recorded, record } = recorder();
    // One subscriber's /64: any of its 2^64 addresses, in any spelling, is the same client.
    await recent.follow('a', '2001:db8:1:2::1', record('a'));
    await recent.follow('a', '2001:db8:1:2:ffff:ffff:ffff:ffff', record('a'));
    await recent.follow('a', '2001:0db8:0001:0002:0000:0000:0000:0007', record('a'));
    expect(recorded).toEqual(['a']);
    // The next /64 is another client.
    await recent.follow('a', '2001:db8:1:3::1', record('a'));
    expect(recorded).toEqual(['a', 'a']);
    await recent.follow('a', '192.0.2.1', record('a'));
    await recent.follow('a', '::ffff:192.0.2.1', record('a'));
    expect(recorded).toEqual(['a', 'a', 'a']);
  });

  it('remembers at most its bound of pairs, forgetting the oldest first', async () => {
    const recent = new RecentClicks(new TestClock(), 60_000, 3);
    const { recorded, record } = recorder();
    for (const code of ['a', 'b', 'c', 'd']) await recent.follow(code, '10.0.0.1', record(code));
    await recent.follow('d', '10.0.0.1', record('d'));
    await recent.follow('a', '10.0.0.1', record('a'));
    expect(recorded).toEqual(['a', 'b', 'c', 'd', 'a']);
  });

  it('forgets a click that could not be recorded, so that the next one tries again', async () => {
    const recent = new RecentClicks(new TestClock());
    await expect(recent.follow('a', '10.0.0.1', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await recent.follow('a', '10.0.0.1', async () => 'https://x.example/a')).toBe('https://x.example/a');
  });
});
