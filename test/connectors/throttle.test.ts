import { describe, expect, it } from 'vitest';
import { Throttle } from '../../src/connectors/throttle.js';

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
    const throttle = new Throttle(1, 1000);
    expect(await throttle.acquire(1000)).toBe(true);
    expect(await throttle.acquire(30)).toBe(false);
    expect(throttle.waiting).toBe(0);
  });

  it('starts at most `mps` submissions per second', async () => {
    const throttle = new Throttle(1000, 20);
    let started = 0;
    const t0 = Date.now();
    while (Date.now() - t0 < 500) {
      if (!(await throttle.acquire(1000))) break;
      started++;
      throttle.release();
    }
    // A full bucket of 20 at once, then 20 per second: about 30 in half a second, never 40.
    expect(started).toBeGreaterThanOrEqual(25);
    expect(started).toBeLessThanOrEqual(32);
  });

  it('fails every waiter when the connector stops', async () => {
    const throttle = new Throttle(1, 1000);
    await throttle.acquire(1000);
    const waiting = throttle.acquire(10_000);
    throttle.rejectAll();
    expect(await waiting).toBe(false);
  });
});
