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

  it('serves urgent waiters before the others, each kind in order', async () => {
    const throttle = new Throttle(1, 1000);
    expect(await throttle.acquire(1000)).toBe(true);
    const order: string[] = [];
    const wait = (name: string, urgent: boolean) =>
      throttle.acquire(1000, urgent).then((ok) => {
        order.push(name);
        throttle.release(urgent);
        return ok;
      });
    const all = [wait('promo 1', false), wait('promo 2', false), wait('code 1', true), wait('code 2', true)];
    // A new urgent submission does not jump urgent waiters, and a bulk one waits behind everyone.
    expect(throttle.tryAcquire(true)).toBe(false);
    expect(throttle.tryAcquire(false)).toBe(false);
    throttle.release();
    expect(await Promise.all(all)).toEqual([true, true, true, true]);
    expect(order).toEqual(['code 1', 'code 2', 'promo 1', 'promo 2']);
  });

  it('keeps the urgent share of the window free of other submissions', async () => {
    const throttle = new Throttle(10, 1000, undefined, 20);
    for (let i = 0; i < 8; i++) expect(throttle.tryAcquire(false)).toBe(true);
    // Eight of ten slots are the most PROMO traffic may hold; the last two take codes only.
    expect(throttle.tryAcquire(false)).toBe(false);
    expect(throttle.tryAcquire(true)).toBe(true);
    expect(throttle.tryAcquire(true)).toBe(true);
    expect(throttle.tryAcquire(true)).toBe(false);
    expect(throttle.active).toBe(10);
    // A freed bulk slot goes to a waiting bulk submission; a freed urgent one cannot.
    const bulk = throttle.acquire(1000, false);
    throttle.release(true);
    expect(throttle.waiting).toBe(1);
    throttle.release(false);
    expect(await bulk).toBe(true);
  });

  it('lets a bulk submission take the only slot of a window of one', () => {
    const throttle = new Throttle(1, 1000, undefined, 90);
    expect(throttle.tryAcquire(false)).toBe(true);
  });
});
