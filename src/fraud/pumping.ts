/*
 * Pumping detection (DESIGN 20), as a pure function of counts: a burst of messages to one number range or one
 * country far above the account's own baseline is held for the operator. The counts come from fraudSql.ts, one read
 * per batch.
 */

import { DEFAULT_PUMPING, PUMPING_MODES, type PumpingSettings } from '../shared/guardSettings.js';

export { DEFAULT_PUMPING, type PumpingSettings };

/**
 * An account's effective pumping settings (guard/: the operator's narrowed by the client's) with the mode no stricter
 * than the operator's switch `ceiling` (HERALD_PUMPING_MODE).
 *
 * - mode `hold`: a burst's messages wait for the operator; `monitor`: they go, counted in the metrics; `off`: no
 *   counting;
 * - `rangeFloor`, `countryFloor`: the least allowance per hour to one range, one foreign country (see keysOf);
 * - `factor`: how far above its baseline, and how many messages per proof of real traffic, an account may go.
 */
export function pumpingCapped(settings: PumpingSettings, ceiling: PumpingSettings['mode']): PumpingSettings {
  return PUMPING_MODES.indexOf(settings.mode) <= PUMPING_MODES.indexOf(ceiling)
    ? settings
    : { ...settings, mode: ceiling };
}

export type KeyKind = 'range' | 'country';

/** What a message is counted under: `range:7900123`, `country:GB`. */
export type CountKey = `${KeyKind}:${string}`;

/**
 * The country the numbering plan covers range by range (its mobile ranges are Russian): a mailing spread over it is
 * ordinary traffic, and a burst into one of its ranges is caught by the range's count. Other countries, where
 * international termination is what pumping cashes in, are counted as wholes too.
 */
export const PLAN_COUNTRY = 'RU';

/** Digits cut from a number to name its range: a range is 10,000 numbers, as carriers allocate them. */
const RANGE_SUFFIX = 4;

/** A number's range: the number without its last 4 digits. */
export const rangeOf = (destination: string): string => destination.slice(0, -RANGE_SUFFIX);

/** The keys a message to `destination` counts under: its range first (a burst on both is held under the range). */
export function keysOf(destination: string, country: string | null): CountKey[] {
  const range: CountKey = `range:${rangeOf(destination)}`;
  return country && country !== PLAN_COUNTRY ? [range, `country:${country}`] : [range];
}

export function splitKey(key: CountKey): { kind: KeyKind; key: string } {
  const at = key.indexOf(':');
  return { kind: key.slice(0, at) as KeyKind, key: key.slice(at + 1) };
}

/** What the database knows of one key before a batch. */
export interface KeyState {
  /** Messages that went this hour (hourly buckets, UTC). */
  readonly current: number;
  /** Messages that went the hour before. */
  readonly previous: number;
  /** The account's highest hourly count to the key over the 7 days before the previous hour. */
  readonly baseline: number;
  /** Verification confirmations and FLASHCALL conversions on the key over the last 7 days. */
  readonly proofs: number;
  /** The key's open hold, if any: every new message to it joins the hold. */
  readonly openHold: number | null;
  /** Released by the operator today: never held again until the day ends. */
  readonly trusted: boolean;
}

export const NO_HISTORY: KeyState = {
  current: 0,
  previous: 0,
  baseline: 0,
  proofs: 0,
  openHold: null,
  trusted: false,
};

/**
 * Messages an hour the account may send to a key: its floor, or `factor` times its baseline if higher, raised by
 * `factor` for each proof of real traffic.
 */
export function allowance(kind: KeyKind, state: KeyState, settings: PumpingSettings): number {
  const floor = kind === 'range' ? settings.rangeFloor : settings.countryFloor;
  return Math.max(floor, settings.factor * state.baseline) + settings.factor * state.proofs;
}

/**
 * The count over the sliding hour ending `now`: this hour's bucket and the share of the previous one the window
 * still covers (the previous hour's messages taken as spread evenly over it).
 */
export function slidingCount(state: KeyState, now: Date): number {
  const past = (now.getTime() % 3_600_000) / 3_600_000;
  return state.current + Math.floor(state.previous * (1 - past));
}

/** A message's verdict: it goes (counted under its keys), or it is a burst on `key` (held, or only counted). */
export type Verdict = { readonly burst: false } | { readonly burst: true; readonly key: CountKey };

/**
 * The verdicts of a batch's messages in order, each message seeing the ones before it: a message goes while every
 * key's sliding count stays within its allowance; a message over one, or to a key with an open hold, is a burst on
 * that key. In `hold` mode a burst's message waits in its hold and is not counted (the baseline learns from what
 * went); in `monitor` mode it goes and is counted.
 */
export function judge(
  messages: readonly (readonly CountKey[])[],
  states: ReadonlyMap<CountKey, KeyState>,
  settings: PumpingSettings,
  now: Date,
): Verdict[] {
  const counts = new Map<CountKey, { n: number; limit: number; state: KeyState }>();
  const of = (key: CountKey) => {
    let c = counts.get(key);
    if (!c) {
      const state = states.get(key) ?? NO_HISTORY;
      c = { n: slidingCount(state, now), limit: allowance(splitKey(key).kind, state, settings), state };
      counts.set(key, c);
    }
    return c;
  };
  return messages.map((keys): Verdict => {
    const over = keys.find((key) => {
      const c = of(key);
      return !c.state.trusted && (c.state.openHold !== null || c.n + 1 > c.limit);
    });
    if (over === undefined || settings.mode === 'monitor') for (const key of keys) of(key).n++;
    return over === undefined ? { burst: false } : { burst: true, key: over };
  });
}
