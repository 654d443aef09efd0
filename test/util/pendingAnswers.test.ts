import { describe, expect, it } from 'vitest';
import { PendingAnswers } from '../../src/util/pendingAnswers.js';
import { TestClock } from '../helpers/clock.js';

describe('PendingAnswers: requests waiting for an answer, each timed out a span after it was sent, one timer', () => {
  const setUp = (): {
    clock: TestClock;
    settled: string[];
    pending: PendingAnswers<string, string>;
    add: (key: string) => void;
  } => {
    const clock = new TestClock();
    const settled: string[] = [];
    const pending = new PendingAnswers<string, string>(clock, 1000, 'timed out');
    const add = (key: string): void => pending.add(key, (result) => settled.push(`${key}: ${result}`));
    return { clock, settled, pending, add };
  };

  it('times each out at its own deadline, not before, with one timer armed at a time', () => {
    const { clock, settled, pending, add } = setUp();
    add('a');
    clock.advance(300);
    add('b');
    add('c');
    expect(clock.timers).toBe(1);
    clock.advance(699);
    expect(settled).toEqual([]);
    clock.advance(1);
    expect(settled).toEqual(['a: timed out']);
    expect(clock.timers).toBe(1);
    clock.advance(299);
    expect(settled).toEqual(['a: timed out']);
    clock.advance(1);
    expect(settled).toEqual(['a: timed out', 'b: timed out', 'c: timed out']);
    expect(pending.size).toBe(0);
    expect(clock.timers).toBe(0);
    expect(pending.armed).toBe(false);
  });

  it('settles an answered request once, and keeps the deadlines of those after it', () => {
    const { clock, settled, pending, add } = setUp();
    add('a');
    clock.advance(500);
    add('b');
    expect(pending.settle('a', 'answered')).toBe(true);
    expect(pending.settle('a', 'answered again')).toBe(false);
    clock.advance(500);
    expect(settled).toEqual(['a: answered']);
    clock.advance(499);
    expect(settled).toEqual(['a: answered']);
    clock.advance(1);
    expect(settled).toEqual(['a: answered', 'b: timed out']);
    // An answer after the timeout finds nothing.
    expect(pending.settle('b', 'late')).toBe(false);
    expect(settled).toHaveLength(2);
  });

  it('times out at once a request whose key is sent again while it waits (a sequence number wrapped round)', () => {
    const { clock, settled, pending, add } = setUp();
    add('a');
    add('b');
    clock.advance(600);
    add('a');
    expect(settled).toEqual(['a: timed out']);
    expect(pending.size).toBe(2);
    clock.advance(400);
    expect(settled).toEqual(['a: timed out', 'b: timed out']);
    // The new one has a span of its own, after b.
    clock.advance(599);
    expect(settled).toHaveLength(2);
    clock.advance(1);
    expect(settled).toEqual(['a: timed out', 'b: timed out', 'a: timed out']);
  });

  it('gives a request added while timing out a full span, and the ones already waiting their own', () => {
    const { clock, settled, pending } = setUp();
    const add = (key: string): void =>
      pending.add(key, () => {
        settled.push(`${key} at ${clock.elapsedMs()}`);
        // The first one's timeout sends another request.
        if (key === 'a') add('c');
      });
    add('a');
    clock.advance(500);
    add('b');
    clock.advance(500);
    expect(settled).toEqual(['a at 1000']);
    expect(clock.timers).toBe(1);
    // b times out at its own deadline (1500), not a span after the request added by a's timeout.
    clock.advance(500);
    expect(settled).toEqual(['a at 1000', 'b at 1500']);
    clock.advance(499);
    expect(settled).toHaveLength(2);
    clock.advance(1);
    expect(settled).toEqual(['a at 1000', 'b at 1500', 'c at 2000']);
    expect(clock.timers).toBe(0);
  });

  it('settles every request waiting at a close, leaves no timer, and none fires after', () => {
    const { clock, settled, pending, add } = setUp();
    add('a');
    add('b');
    pending.settleAll('closed');
    expect(settled).toEqual(['a: closed', 'b: closed']);
    expect(clock.timers).toBe(0);
    clock.advance(5000);
    expect(settled).toHaveLength(2);
    // Usable again after.
    add('c');
    clock.advance(1000);
    expect(settled).toEqual(['a: closed', 'b: closed', 'c: timed out']);
  });

  it('arms its timer again when a settle throws, for the requests due later', () => {
    const { clock, settled, pending } = setUp();
    pending.add('bad', () => {
      throw new Error('settle failed');
    });
    clock.advance(500);
    pending.add('b', (result) => settled.push(`b: ${result}`));
    expect(() => clock.advance(500)).toThrow('settle failed');
    expect(clock.timers).toBe(1);
    clock.advance(500);
    expect(settled).toEqual(['b: timed out']);
  });

  it('counts spans in elapsed time: the wall clock set back delays no timeout', () => {
    const { clock, settled, add } = setUp();
    add('a');
    clock.advance(400);
    clock.set(new Date(clock.now().getTime() - 3_600_000));
    clock.advance(599);
    expect(settled).toEqual([]);
    clock.advance(1);
    expect(settled).toEqual(['a: timed out']);
  });

  it('times out on a clock standing still once its timer fires in real time, as a system clock would', async () => {
    const clock = new TestClock();
    const pending = new PendingAnswers<string, string>(clock, 20, 'timed out');
    const result = await new Promise<string>((resolve) => pending.add('a', resolve));
    expect(result).toBe('timed out');
    expect(pending.size).toBe(0);
  });

  it('settles every request at a close even when one of them throws, and throws the first error after', () => {
    const { clock, settled, pending, add } = setUp();
    add('a');
    pending.add('bad', () => {
      throw new Error('settle failed');
    });
    add('c');
    expect(() => pending.settleAll('closed')).toThrow('settle failed');
    expect(settled).toEqual(['a: closed', 'c: closed']);
    expect(pending.size).toBe(0);
    expect(clock.timers).toBe(0);
  });
});
