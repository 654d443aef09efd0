/** The source of "now" for everything time-dependent, so that tests can fix and move time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
