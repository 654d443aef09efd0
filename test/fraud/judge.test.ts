import { describe, expect, it } from 'vitest';
import {
  allowance,
  type CountKey,
  DEFAULT_PUMPING,
  judge,
  keysOf,
  type KeyState,
  NO_HISTORY,
  slidingCount,
} from '../../src/fraud/pumping.js';

const RANGE: CountKey = 'range:7900123';
const at = (time: string) => new Date(`2026-03-10T${time}Z`);
const burstsOf = (verdicts: ReturnType<typeof judge>) => verdicts.filter((v) => v.burst).length;

describe('pumping verdicts (a pure function of counts)', () => {
  it('keys a Russian number by its range only, a foreign one by its range and country', () => {
    expect(keysOf('79001234567', 'RU')).toEqual(['range:7900123']);
    expect(keysOf('447911123456', 'GB')).toEqual(['range:44791112', 'country:GB']);
    expect(keysOf('447911123456', null)).toEqual(['range:44791112']);
  });

  it('allows the floor, the baseline times the factor if higher, and the factor per proof', () => {
    expect(allowance('range', NO_HISTORY, DEFAULT_PUMPING)).toBe(100);
    expect(allowance('country', NO_HISTORY, DEFAULT_PUMPING)).toBe(300);
    expect(allowance('range', { ...NO_HISTORY, baseline: 5 }, DEFAULT_PUMPING)).toBe(100);
    expect(allowance('range', { ...NO_HISTORY, baseline: 50 }, DEFAULT_PUMPING)).toBe(500);
    expect(allowance('range', { ...NO_HISTORY, baseline: 50, proofs: 3 }, DEFAULT_PUMPING)).toBe(530);
  });

  it('counts the share of the previous hour the sliding hour still covers', () => {
    const state: KeyState = { ...NO_HISTORY, current: 10, previous: 80 };
    expect(slidingCount(state, at('09:00:00'))).toBe(90);
    expect(slidingCount(state, at('09:15:00'))).toBe(70);
    expect(slidingCount(state, at('09:59:59'))).toBe(10);
  });

  it('holds from the first message over the allowance, seeing the batch before it', () => {
    const state: KeyState = { ...NO_HISTORY, current: 60 };
    const verdicts = judge(Array(50).fill([RANGE]), new Map([[RANGE, state]]), DEFAULT_PUMPING, at('09:30:00'));
    expect(verdicts.slice(0, 40).every((v) => !v.burst)).toBe(true);
    expect(verdicts.slice(40)).toEqual(Array(10).fill({ burst: true, key: RANGE }));
  });

  it('holds every message to a key with an open hold, none to a trusted key', () => {
    const open = new Map([[RANGE, { ...NO_HISTORY, openHold: 7 }]]);
    expect(burstsOf(judge([[RANGE]], open, DEFAULT_PUMPING, at('09:00:00')))).toBe(1);
    const trusted = new Map([[RANGE, { ...NO_HISTORY, current: 5000, trusted: true }]]);
    expect(burstsOf(judge(Array(10).fill([RANGE]), trusted, DEFAULT_PUMPING, at('09:00:00')))).toBe(0);
  });

  it('in monitor mode finds the same bursts and counts them as sent', () => {
    const monitor = { ...DEFAULT_PUMPING, mode: 'monitor' as const };
    const hold = judge(Array(150).fill([RANGE]), new Map(), DEFAULT_PUMPING, at('09:00:00'));
    const watched = judge(Array(150).fill([RANGE]), new Map(), monitor, at('09:00:00'));
    expect(burstsOf(hold)).toBe(50);
    expect(burstsOf(watched)).toBe(50);
  });
});
