import { describe, expect, it } from 'vitest';
import { Throttle } from '../../src/connectors/throttle.js';
import { TestClock } from '../helpers/clock.js';

describe('connector flow control', () => {
  it('keeps at most `window` submissions in flight, serving waiters in order', async () => {
    const throttle = new Throttle(2, 1000);
    expect(await throttle.acquire(1000)).toBe(true);
    expect(await throttle.acquire(1000)).toBe(true);
    expect(throttle.active).toBe(2);
    const order: number[] = [];
    const third = throttle.acquire(1000).then((ok) => order.push(3) && ok);
    const fourth = throttle.acquire(1000).then((ok) => order.push(4) && ok);
    expect(throttle.waiting).toBe(2);
    throttle.release();
    throttle.release();
    expect(await third).toBe(true);
    expect(await fourth).toBe(true);
    expect(order).toEqual([3, 4]);
  });

  it('gives up on a waiter after its maximum wait, so its message goes back to the queue', async () => {
    const clock = new TestClock();
    const throttle = new Throttle(1, 1000, clock);
    expect(await throttle.acquire(1000)).toBe(true);
    const waiting = throttle.acquire(30);
    clock.advance(29);
    expect(throttle.waiting).toBe(1);
    clock.advance(2);
    expect(await waiting).toBe(false);
    expect(throttle.waiting).toBe(0);
  });

  it('starts at most `mps` submissions per second: a full bucket at once, then one every 1000/mps ms', async () => {
    const clock = new TestClock();
    const throttle = new Throttle(1000, 20, clock);
    for (let i = 0; i < 20; i++) {
      expect(await throttle.acquire(1000)).toBe(true);
      throttle.release();
    }
    let started = false;
    const next = throttle.acquire(1000).then((ok) => (started = ok));
    clock.advance(49);
    await Promise.resolve();
    expect(started).toBe(false);
    clock.advance(1);
    await next;
    expect(started).toBe(true);
  });

  it('fails every waiter when the connector stops', async () => {
    const throttle = new Throttle(1, 1000);
    await throttle.acquire(1000);
    const waiting = throttle.acquire(10_000);
    throttle.rejectAll();
    expect(await waiting).toBe(false);
  });
});
