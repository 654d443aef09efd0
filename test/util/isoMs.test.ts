import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoMs } from '../../src/util/time.js';

describe('isoMs', () => {
  it('gives what toISOString gives, for any time from year -271821 to 275760', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        const date = new Date(ms);
        expect(isoMs(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('gives the same for runs of times in a few days, the day it keeps written again as the day changes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
        fc.array(fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }), { minLength: 1, maxLength: 50 }),
        (base, offsets) => {
          for (const offset of offsets) {
            const date = new Date(base + offset);
            expect(isoMs(date)).toBe(date.toISOString());
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('pads every field and keeps the edges of the years it formats itself', () => {
    for (const ms of [
      Date.UTC(1000, 0, 1, 0, 0, 0, 0),
      Date.UTC(1000, 0, 1, 0, 0, 0, 0) - 1,
      Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1,
      0,
      -1,
    ]) {
      expect(isoMs(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });

  it('throws on an invalid date, as toISOString does', () => {
    expect(() => isoMs(new Date(NaN))).toThrow(RangeError);
  });
});
