import { describe, expect, it } from 'vitest';
import { NumberingPlan } from '../../src/numbering/numberingPlan.js';
import { lookupSubscriber } from '../../src/numbering/subscriber.js';
import { messageWindow, type WindowFields } from '../../src/schedule/messageWindow.js';
import { completionInstant, nextAllowedInstant, planSend, type SendWindow } from '../../src/schedule/sendWindow.js';
import { fromWall, toWall, zoneOffsetMs } from '../../src/schedule/zonedTime.js';
import { parseLocalTime } from '../../src/util/time.js';

const at = (iso: string): number => new Date(iso).getTime();
const wall = (text: string): number => parseLocalTime(text)!;
const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
const plan = (window: SendWindow, now: string) => {
  const result = planSend(window, at(now));
  return { planned: result.plannedSendAt?.toISOString() ?? null, deadline: result.deadlineAt.toISOString() };
};
const MSK = ['Europe/Moscow'];

describe('zoned time', () => {
  it.each([
    ['Europe/Moscow', '2026-01-15T12:00:00Z', 3],
    ['Asia/Kamchatka', '2026-01-15T12:00:00Z', 12],
    ['Europe/Kaliningrad', '2026-07-15T12:00:00Z', 2],
    ['Europe/Berlin', '2026-01-15T12:00:00Z', 1],
    ['Europe/Berlin', '2026-07-15T12:00:00Z', 2],
    ['America/New_York', '2026-07-15T12:00:00Z', -4],
    ['Asia/Kolkata', '2026-07-15T12:00:00Z', 5.5],
    ['Asia/Kathmandu', '2026-07-15T12:00:00Z', 5.75],
  ])('%s at %s is UTC%+d', (zone, instant, hours) => {
    expect(zoneOffsetMs(zone, at(instant))).toBe(hours * 3600_000);
  });

  it('changes the offset exactly at the DST transition', () => {
    // Europe/Berlin springs forward at 2026-03-29 01:00 UTC.
    expect(zoneOffsetMs('Europe/Berlin', at('2026-03-29T00:59:59Z'))).toBe(3600_000);
    expect(zoneOffsetMs('Europe/Berlin', at('2026-03-29T01:00:00Z'))).toBe(7200_000);
  });

  it('maps wall times to instants, including DST gaps and overlaps', () => {
    expect(iso(fromWall('Europe/Moscow', wall('2026-03-11 10:00:00')))).toBe('2026-03-11T07:00:00.000Z');
    // 02:30 does not exist in Berlin on 2026-03-29: the first existing time is 03:00 CEST.
    expect(iso(fromWall('Europe/Berlin', wall('2026-03-29 02:30:00')))).toBe('2026-03-29T01:00:00.000Z');
    // 01:30 happens twice in New York on 2026-11-01: the first (EDT) is taken.
    expect(iso(fromWall('America/New_York', wall('2026-11-01 01:30:00')))).toBe('2026-11-01T05:30:00.000Z');
    expect(toWall('America/New_York', at('2026-11-01T06:30:00Z'))).toBe(wall('2026-11-01 01:30:00'));
  });
});

describe('send window planning (DESIGN 4)', () => {
  it('sends at once without constraints; deadline = now + ttl (default 25 hours)', () => {
    expect(plan({ zones: MSK }, '2026-03-10T09:00:00Z')).toEqual({
      planned: '2026-03-10T09:00:00.000Z',
      deadline: '2026-03-11T10:00:00.000Z',
    });
    expect(plan({ zones: MSK, ttlSeconds: 600 }, '2026-03-10T09:00:00Z').deadline).toBe('2026-03-10T09:10:00.000Z');
  });

  it('holds a message until the allowed hours in the subscriber zone', () => {
    // 23:00 MSK on Tuesday; hours 9-17 -> Wednesday 09:00 MSK.
    const window = { zones: MSK, hours: [9, 10, 11, 12, 13, 14, 15, 16, 17] };
    expect(plan(window, '2026-03-10T20:00:00Z')).toEqual({
      planned: '2026-03-11T06:00:00.000Z',
      deadline: '2026-03-12T07:00:00.000Z',
    });
    // Inside the window: at once.
    expect(plan(window, '2026-03-10T07:30:00Z').planned).toBe('2026-03-10T07:30:00.000Z');
  });

  it('reads hours in the subscriber zone, not in UTC or Moscow', () => {
    // 09:00 in Irkutsk (UTC+8) is 01:00 UTC.
    expect(plan({ zones: ['Asia/Irkutsk'], hours: [9] }, '2026-03-10T09:00:00Z').planned).toBe(
      '2026-03-11T01:00:00.000Z',
    );
  });

  it('wraps days: weekend only, asked on a Tuesday', () => {
    expect(plan({ zones: MSK, days: [6, 7] }, '2026-03-10T09:00:00Z').planned).toBe('2026-03-13T21:00:00.000Z');
  });

  it('wraps the week: Monday 00:00, asked on Sunday 23:30', () => {
    // 2026-03-15 is a Sunday; 23:30 MSK = 20:30 UTC.
    expect(plan({ zones: MSK, days: [1], hours: [0] }, '2026-03-15T20:30:00Z').planned).toBe(
      '2026-03-15T21:00:00.000Z',
    );
    // Asked on Monday 00:30: next Monday.
    expect(plan({ zones: MSK, days: [1], hours: [0] }, '2026-03-15T21:30:00Z').planned).toBe(
      '2026-03-15T21:30:00.000Z',
    );
    expect(plan({ zones: MSK, days: [1], hours: [0] }, '2026-03-15T22:00:00Z').planned).toBe(
      '2026-03-22T21:00:00.000Z',
    );
  });

  it('honours localSendTime in the zone, and localSendTime in the past means now', () => {
    const window = { zones: ['Asia/Irkutsk'], sendFrom: wall('2026-03-11 10:00:00') };
    expect(plan(window, '2026-03-10T09:00:00Z').planned).toBe('2026-03-11T02:00:00.000Z');
    expect(plan({ zones: MSK, sendFrom: wall('2026-03-10 01:00:00') }, '2026-03-10T09:00:00Z').planned).toBe(
      '2026-03-10T09:00:00.000Z',
    );
  });

  it('combines localSendTime with hours: the first allowed hour after the send time', () => {
    const window = { zones: MSK, sendFrom: wall('2026-03-11 18:20:00'), hours: [9, 18] };
    expect(plan(window, '2026-03-10T09:00:00Z').planned).toBe('2026-03-11T15:20:00.000Z');
    const late = { zones: MSK, sendFrom: wall('2026-03-11 19:20:00'), hours: [9, 18] };
    expect(plan(late, '2026-03-10T09:00:00Z').planned).toBe('2026-03-12T06:00:00.000Z');
  });

  it('uses Moscow time when useLocalTime is false (zones = Europe/Moscow)', () => {
    expect(plan({ zones: MSK, sendFrom: wall('2026-03-11 10:00:00') }, '2026-03-10T09:00:00Z').planned).toBe(
      '2026-03-11T07:00:00.000Z',
    );
  });

  it('with several zones, sends only at instants allowed in all of them', () => {
    // 9-11 in Moscow (06-09 UTC) and in Yekaterinburg (04-07 UTC): 06:00-07:00 UTC.
    const window = { zones: ['Europe/Moscow', 'Asia/Yekaterinburg'], hours: [9, 10, 11] };
    expect(plan(window, '2026-03-10T01:00:00Z').planned).toBe('2026-03-10T06:00:00.000Z');
    expect(nextAllowedInstant(window, at('2026-03-10T06:59:00Z'), at('2026-03-20T00:00:00Z'))).toBe(
      at('2026-03-10T06:59:00Z'),
    );
    expect(nextAllowedInstant(window, at('2026-03-10T07:00:00Z'), at('2026-03-20T00:00:00Z'))).toBe(
      at('2026-03-11T06:00:00Z'),
    );
  });

  it('never opens when the zones allow no common instant -> no planned time', () => {
    // 09:00 in Moscow is 18:00 in Kamchatka.
    const window = { zones: ['Europe/Moscow', 'Asia/Kamchatka'], hours: [9] };
    expect(plan(window, '2026-03-10T09:00:00Z')).toEqual({ planned: null, deadline: '2026-03-10T09:00:00.000Z' });
  });

  it('never opens before localCompletionTime -> no planned time, deadline = completion', () => {
    // Mondays only, but the completion time is Thursday.
    const window = { zones: MSK, days: [1], sendUntil: wall('2026-03-12 23:00:00') };
    expect(plan(window, '2026-03-10T09:00:00Z')).toEqual({ planned: null, deadline: '2026-03-12T20:00:00.999Z' });
  });

  it('uses localCompletionTime as the deadline, in the zone that reaches it first', () => {
    const window = { zones: ['Europe/Moscow', 'Asia/Yekaterinburg'], sendUntil: wall('2026-03-10 23:00:00') };
    expect(plan(window, '2026-03-10T09:00:00Z')).toEqual({
      planned: '2026-03-10T09:00:00.000Z',
      deadline: '2026-03-10T18:00:00.999Z',
    });
    expect(iso(completionInstant(window))).toBe('2026-03-10T18:00:00.999Z');
  });

  it('ends sending at the end of the one lifetime when localCompletionTime is later (DESIGN 12)', () => {
    const window = { zones: MSK, sendUntil: wall('2026-03-12 23:00:00'), ttlSeconds: 3600 };
    expect(plan(window, '2026-03-10T09:00:00Z')).toEqual({
      planned: '2026-03-10T09:00:00.000Z',
      deadline: '2026-03-10T10:00:00.000Z',
    });
    expect(planSend(window, Date.parse('2026-03-10T09:00:00Z')).expiresAt.toISOString()).toBe(
      '2026-03-10T10:00:00.000Z',
    );
  });

  it('deadline = planned send time + ttl when there is no completion time', () => {
    expect(plan({ zones: MSK, hours: [12], ttlSeconds: 3600 }, '2026-03-10T00:00:00Z')).toEqual({
      planned: '2026-03-10T09:00:00.000Z',
      deadline: '2026-03-10T10:00:00.000Z',
    });
  });

  it('skips an hour that a spring-forward DST change removes', () => {
    // Berlin has no 02:00-03:00 on 2026-03-29: hour 2 next happens on 2026-03-30 (CEST, UTC+2).
    expect(plan({ zones: ['Europe/Berlin'], hours: [2] }, '2026-03-28T12:00:00Z').planned).toBe(
      '2026-03-30T00:00:00.000Z',
    );
    expect(plan({ zones: ['Europe/Berlin'], hours: [3] }, '2026-03-28T12:00:00Z').planned).toBe(
      '2026-03-29T01:00:00.000Z',
    );
  });

  it('takes the first of the two hours a fall-back DST change repeats', () => {
    // New York shows 01:00-02:00 twice on 2026-11-01: first at 05:00 UTC (EDT), then at 06:00 UTC (EST).
    expect(plan({ zones: ['America/New_York'], hours: [1] }, '2026-11-01T04:00:00Z').planned).toBe(
      '2026-11-01T05:00:00.000Z',
    );
    // Within the second 01:00 hour it is still allowed.
    expect(plan({ zones: ['America/New_York'], hours: [1] }, '2026-11-01T06:10:00Z').planned).toBe(
      '2026-11-01T06:10:00.000Z',
    );
  });

  it('respects the completion second inclusively', () => {
    const window = { zones: MSK, sendUntil: wall('2026-03-10 12:00:00') };
    expect(nextAllowedInstant(window, at('2026-03-10T09:00:00.500Z'), at('2026-03-11T00:00:00Z'))).toBe(
      at('2026-03-10T09:00:00.500Z'),
    );
    expect(nextAllowedInstant(window, at('2026-03-10T09:00:01Z'), at('2026-03-11T00:00:00Z'))).toBeNull();
  });

  it('intersects hours and weekdays across zones', () => {
    // Saturdays 10-13 in Moscow (07-10 UTC) and Yekaterinburg (05-08 UTC): Saturday 07:00-08:00 UTC.
    const window = { zones: ['Europe/Moscow', 'Asia/Yekaterinburg'], hours: [10, 11, 12], days: [6] };
    const result = planSend(window, at('2026-03-10T09:00:00Z'));
    expect(result.plannedSendAt?.toISOString()).toBe('2026-03-14T07:00:00.000Z');
  });
});

describe("planning in the zones of the subscriber's number (DESIGN 4 and 12)", () => {
  const numbering = NumberingPlan.load();
  const fields = (over: Partial<WindowFields>): WindowFields => ({
    useLocalTime: true,
    localSendTime: null,
    localCompletionTime: null,
    hours: null,
    days: null,
    ttl: null,
    ...over,
  });
  const planFor = (msisdn: string, country: string, over: Partial<WindowFields>, now: string): string | null => {
    const zones = lookupSubscriber(numbering, msisdn, country).zones;
    return iso(planSend(messageWindow(fields(over), zones), at(now)).plannedSendAt?.getTime());
  };

  it('sends a Los Angeles number at 10:00 Los Angeles time, a New York number at 10:00 New York time', () => {
    // 2026-07-15 12:00 UTC is 05:00 PDT (UTC-7) and 08:00 EDT (UTC-4).
    expect(planFor('12135550123', 'US', { hours: [10] }, '2026-07-15T12:00:00Z')).toBe('2026-07-15T17:00:00.000Z');
    expect(planFor('13105550123', 'US', { hours: [10] }, '2026-07-15T12:00:00Z')).toBe('2026-07-15T17:00:00.000Z');
    expect(planFor('12125550123', 'US', { hours: [10] }, '2026-07-15T12:00:00Z')).toBe('2026-07-15T14:00:00.000Z');
    // useLocalTime: false still reads the hours in Moscow.
    expect(planFor('12135550123', 'US', { hours: [10], useLocalTime: false }, '2026-07-15T12:00:00Z')).toBe(
      '2026-07-16T07:00:00.000Z',
    );
  });

  it('sends a number whose prefix spans several zones only at an instant allowed in all of them', () => {
    // Boise is on MDT (UTC-6), Los Angeles on PDT (UTC-7): 10-11 in both is 17:00-18:00 UTC.
    expect(planFor('12083201234', 'US', { hours: [10, 11] }, '2026-07-15T12:00:00Z')).toBe('2026-07-15T17:00:00.000Z');
    // 10:00 in Boise is 09:00 in Los Angeles: hour 10 alone never comes in both.
    expect(planFor('12083201234', 'US', { hours: [10] }, '2026-07-15T12:00:00Z')).toBeNull();
  });

  it('sends a Sakha mobile only when the hour is allowed from Yakutsk (UTC+9) to Srednekolymsk (UTC+11)', () => {
    // 10-12 in all of UTC+9, +10 and +11 is 01:00-02:00 UTC; at 03:00 UTC it is 12:00 in Yakutsk but 14:00 in
    // Srednekolymsk, so the message waits for the next day.
    const hours = [10, 11, 12];
    expect(planFor('79241700000', 'RU', { hours }, '2026-03-10T03:00:00Z')).toBe('2026-03-11T01:00:00.000Z');
    expect(planFor('79241700000', 'RU', { hours }, '2026-03-10T01:30:00Z')).toBe('2026-03-10T01:30:00.000Z');
  });
});
