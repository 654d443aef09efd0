import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/util/deadlines.js';
import { TestClock } from '../helpers/clock.js';

describe('Deadlines: keys that expire one span after they were added, on one timer', () => {
  const setUp = (): { clock: TestClock; expired: string[]; deadlines: Deadlines<string> } => {
    const clock = new TestClock();
    const expired: string[] = [];
    const deadlines = new Deadlines<string>(clock, 1000, (key) => expired.push(key));
    return { clock, expired, deadlines };
  };

  it('expires each key at its own deadline, not before, with one timer armed at a time', () => {
    const { clock, expired, deadlines } = setUp();
    deadlines.add('a');
    clock.advance(300);
    deadlines.add('b');
    deadlines.add('c');
    expect(clock.timers).toBe(1);
    clock.advance(699);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual(['a']);
    expect(clock.timers).toBe(1);
    clock.advance(299);
    expect(expired).toEqual(['a']);
    clock.advance(1);
    expect(expired).toEqual(['a', 'b', 'c']);
    expect(deadlines.size).toBe(0);
    expect(clock.timers).toBe(0);
  });

  it('never expires a deleted key, and keeps the deadlines of the keys after it', () => {
    const { clock, expired, deadlines } = setUp();
    deadlines.add('a');
    clock.advance(500);
    deadlines.add('b');
    expect(deadlines.delete('a')).toBe(true);
    clock.advance(500);
    expect(expired).toEqual([]);
    clock.advance(499);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual(['b']);
    expect(deadlines.delete('b')).toBe(false);
  });

  it('starts the span again for a key added again, which then expires after the others', () => {
    const { clock, expired, deadlines } = setUp();
    deadlines.add('a');
    deadlines.add('b');
    clock.advance(600);
    deadlines.add('a');
    clock.advance(400);
    expect(expired).toEqual(['b']);
    clock.advance(600);
    expect(expired).toEqual(['b', 'a']);
  });

  it('takes keys added by an expiry, each a span after it', () => {
    const clock = new TestClock();
    const expired: string[] = [];
    const deadlines: Deadlines<string> = new Deadlines<string>(clock, 1000, (key) => {
      expired.push(key);
      if (key.length < 3) deadlines.add(`${key}+`);
    });
    deadlines.add('a');
    clock.advance(1000);
    expect(expired).toEqual(['a']);
    expect(clock.timers).toBe(1);
    clock.advance(999);
    expect(expired).toEqual(['a']);
    clock.advance(1);
    expect(expired).toEqual(['a', 'a+']);
    clock.advance(1000);
    expect(expired).toEqual(['a', 'a+', 'a++']);
    expect(clock.timers).toBe(0);
  });

  it('leaves no timer when cleared, and none fires after', () => {
    const { clock, expired, deadlines } = setUp();
    deadlines.add('a');
    deadlines.add('b');
    deadlines.clear();
    expect(clock.timers).toBe(0);
    clock.advance(5000);
    expect(expired).toEqual([]);
    // Usable again after a clear.
    deadlines.add('c');
    clock.advance(1000);
    expect(expired).toEqual(['c']);
  });

  it('arms its timer again when an expiry throws, for the keys still due later', () => {
    const clock = new TestClock();
    const expired: string[] = [];
    const deadlines = new Deadlines<string>(clock, 1000, (key) => {
      if (key === 'bad') throw new Error('expiry failed');
      expired.push(key);
    });
    deadlines.add('bad');
    clock.advance(500);
    deadlines.add('b');
    expect(() => clock.advance(500)).toThrow('expiry failed');
    expect(clock.timers).toBe(1);
    clock.advance(500);
    expect(expired).toEqual(['b']);
  });
});
