import { describe, expect, it } from 'vitest';
import { PaceSlots } from '../../src/schedule/paceSlots.js';
import type { SendWindow } from '../../src/schedule/sendWindow.js';
import { parseLocalTime } from '../../src/util/time.js';

const at = (iso: string): number => new Date(iso).getTime();
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const FAR = at('2026-04-01T00:00:00Z');
const START = '2026-03-10T09:00:00Z';

/** The pure plan of a dispatch's messages (dispatchWindow.test.ts runs it through the pipeline). */
describe('pace slots', () => {
  it('spreads a speed from the moment the window opens, not from the start', () => {
    const slots = new PaceSlots(at(START), 10_000);
    const window: SendWindow = { zones: ['Europe/Moscow'], sendFrom: parseLocalTime('2026-03-13 10:00:00') };
    expect([1, 2, 3].map(() => iso(slots.take(window, FAR)))).toEqual([
      '2026-03-13T07:00:00.000Z',
      '2026-03-13T07:00:10.000Z',
      '2026-03-13T07:00:20.000Z',
    ]);
  });

  it('gives each zone the slots of its own opening, one dispatch-wide speed, no slot twice', () => {
    const slots = new PaceSlots(at('2026-03-10T20:00:00Z'), 60_000);
    const from = parseLocalTime('2026-03-11 09:00:00');
    const moscow: SendWindow = { zones: ['Europe/Moscow'], sendFrom: from };
    const vladivostok: SendWindow = { zones: ['Asia/Vladivostok'], sendFrom: from };
    // Added alternately: Vladivostok opens at 23:00 UTC, Moscow at 06:00 UTC.
    const planned = [moscow, vladivostok, moscow, vladivostok].map((w) => iso(slots.take(w, FAR)));
    expect(planned).toEqual([
      '2026-03-11T06:00:00.000Z',
      '2026-03-10T23:00:00.000Z',
      '2026-03-11T06:01:00.000Z',
      '2026-03-10T23:01:00.000Z',
    ]);
    // A message open from the start takes the first free slot, before either window.
    expect(iso(slots.take({ zones: ['Europe/Moscow'] }, FAR))).toBe('2026-03-10T20:00:00.000Z');
    // The slots a later message finds taken are skipped.
    expect(iso(slots.take(moscow, FAR))).toBe('2026-03-11T06:02:00.000Z');
  });

  it('goes on at the next allowed hour when the hour closes before every message has gone', () => {
    // 12:00 Moscow; hour 14 only; one every 20 minutes: three an hour.
    const slots = new PaceSlots(at(START), 20 * 60_000);
    const window: SendWindow = { zones: ['Europe/Moscow'], hours: [14] };
    expect([1, 2, 3, 4].map(() => iso(slots.take(window, FAR)))).toEqual([
      '2026-03-10T11:00:00.000Z',
      '2026-03-10T11:20:00.000Z',
      '2026-03-10T11:40:00.000Z',
      '2026-03-11T11:00:00.000Z',
    ]);
  });

  it('without a speed, each message at its window opening; null when it never opens before the deadline', () => {
    const slots = new PaceSlots(at(START), 0);
    const window: SendWindow = { zones: ['Europe/Moscow'], hours: [14] };
    expect(iso(slots.take(window, FAR))).toBe('2026-03-10T11:00:00.000Z');
    expect(iso(slots.take(window, FAR))).toBe('2026-03-10T11:00:00.000Z');
    expect(slots.take(window, at('2026-03-10T10:00:00Z'))).toBeNull();
  });

  it('gives a message whose window closes before a free slot the slot after it (the submitter finds it late)', () => {
    const slots = new PaceSlots(at(START), 3_600_000);
    const until = at('2026-03-10T10:30:00Z');
    const window: SendWindow = { zones: ['Europe/Moscow'], sendUntil: parseLocalTime('2026-03-10 13:30:00') };
    expect([1, 2, 3].map(() => iso(slots.take(window, until)))).toEqual([
      '2026-03-10T09:00:00.000Z',
      '2026-03-10T10:00:00.000Z',
      '2026-03-10T11:00:00.000Z',
    ]);
  });
});
