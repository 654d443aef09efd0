import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestamptzOf } from '../../src/db/timestamptzText.js';

// The `pg` driver's own parser of timestamptz text (postgres-date, through pg-types).
const driverParse = createRequire(import.meta.url)('postgres-date') as (text: string) => Date | number | null;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** timestamptz text as PostgreSQL writes it in the ISO DateStyle, over the whole range of shapes. */
const text = fc
  .record({
    year: fc.oneof(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 999 })),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.integer({ min: 1, max: 6 }).chain((n) => fc.stringMatching(new RegExp(`^\\d{${n}}$`)))),
    offset: fc.oneof(
      fc.constant('+00'),
      fc.integer({ min: -14, max: 14 }).map((h) => (h < 0 ? '-' : '+') + pad(Math.abs(h), 2)),
      fc.constantFrom('+05:30', '-03:30', '+05:45', '+02:30:17', '-00:25:21'),
    ),
    bc: fc.constantFrom('', '', '', ' BC'),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)} ${pad(t.hour, 2)}:${pad(t.minute, 2)}:` +
      `${pad(t.second, 2)}${t.fraction === null ? '' : `.${t.fraction}`}${t.offset}${t.bc}`,
  );

const instant = (value: Date | number | null | undefined): number | null | undefined =>
  value instanceof Date ? value.getTime() : value;

describe('timestamptz text read by position', () => {
  it("reads every value it takes as the driver's parser does, and leaves the rest to it", () => {
    let read = 0;
    fc.assert(
      fc.property(text, (t) => {
        const ours = timestamptzOf(t);
        if (ours === undefined) return;
        read++;
        expect(ours.getTime()).toBe(instant(driverParse(t)));
      }),
      { numRuns: 20000 },
    );
    // Most of the generated values have the usual shape: the comparison ran on them.
    expect(read).toBeGreaterThan(4000);
  });

  it('reads the usual shapes and declines the others', () => {
    expect(timestamptzOf('2026-11-30 07:50:24.123456+00')?.toISOString()).toBe('2026-11-30T07:50:24.123Z');
    expect(timestamptzOf('2026-11-30 10:50:24.1+03')?.toISOString()).toBe('2026-11-30T07:50:24.100Z');
    expect(timestamptzOf('2026-11-30 02:20:24-05:30')?.toISOString()).toBe('2026-11-30T07:50:24.000Z');
    for (const other of [
      'infinity',
      '-infinity',
      '0044-03-15 12:00:00+00 BC',
      '0099-01-01 00:00:00+00',
      '12026-01-01 00:00:00+00',
      '1880-01-01 00:00:00+02:30:17',
      '2026-11-30',
      '2026-11-30 07:50:24',
      '2026-11-30 07:50:24.+00',
    ]) {
      expect(timestamptzOf(other)).toBeUndefined();
    }
  });
});
