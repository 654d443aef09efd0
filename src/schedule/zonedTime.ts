/**
 * Time-zone arithmetic on IANA zones with the platform's Intl data. Every zone offset in use is a multiple of
 * 15 minutes and changes only at instants aligned to a UTC quarter-hour, so offsets are cached per quarter-hour.
 */
export const QUARTER_HOUR_MS = 15 * 60_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();
const MAX_CACHED_OFFSETS = 200_000;

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * The platform's canonical zone names. Checking a zone against them needs no formatter: checking the 286 zones of
 * libphonenumber's prefix data by building one each took 6.6 MB of resident memory (ICU zone data) for zones most
 * deployments never send to.
 */
const CANONICAL_ZONES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('timeZone'));

/** True when the platform knows the zone (a canonical name, or an alias such as `Asia/Calcutta`). */
export function isValidZone(zone: string): boolean {
  if (CANONICAL_ZONES.has(zone)) return true;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at an instant, in milliseconds (wall clock = instant + offset). */
export function zoneOffsetMs(zone: string, instantMs: number): number {
  const slot = Math.floor(instantMs / QUARTER_HOUR_MS);
  const key = `${zone}\u0000${slot}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const at = slot * QUARTER_HOUR_MS;
    const parts = formatter(zone).formatToParts(new Date(at));
    const get = (type: string): number => Number(parts.find((p) => p.type === type)!.value);
    const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
    offset = wall - at;
    if (offsets.size >= MAX_CACHED_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** The wall-clock time of an instant in a zone, as milliseconds of the same wall-clock time in UTC. */
export function toWall(zone: string, instantMs: number): number {
  return instantMs + zoneOffsetMs(zone, instantMs);
}

/**
 * An instant as the wall-clock time that bounds a local time written for all of `zones` (milliseconds of the same
 * wall time read as UTC): for a lower bound the latest of their wall clocks at that instant, for an upper bound the
 * earliest, so that a local time within the bounds is within them in every zone.
 */
export function wallBound(zones: readonly string[], instantMs: number, bound: 'lower' | 'upper'): number {
  const walls = zones.map((zone) => toWall(zone, instantMs));
  return bound === 'lower' ? Math.max(...walls) : Math.min(...walls);
}

/**
 * The instant at which a zone's wall clock shows `wallMs`. In a spring-forward gap (a wall time that does not
 * exist) it is the instant the gap ends; in a fall-back overlap, the first of the two instants.
 */
export function fromWall(zone: string, wallMs: number): number {
  const before = zoneOffsetMs(zone, wallMs - 14 * 3600_000);
  const after = zoneOffsetMs(zone, wallMs + 14 * 3600_000);
  const first = wallMs - before;
  if (toWall(zone, first) === wallMs) return first;
  const second = wallMs - after;
  if (toWall(zone, second) === wallMs) return second;
  // A gap: the wall clock jumps over wallMs; the first existing time after it is at the transition.
  return transitionAfter(zone, Math.min(first, second));
}

/** The first quarter-hour boundary at or after `fromMs` where the zone's offset differs from that at `fromMs`. */
function transitionAfter(zone: string, fromMs: number): number {
  const start = zoneOffsetMs(zone, fromMs);
  let t = Math.ceil(fromMs / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  for (let i = 0; i < 4 * 30; i++, t += QUARTER_HOUR_MS) {
    if (zoneOffsetMs(zone, t) !== start) return t;
  }
  return fromMs;
}

/** Hour 0-23 of a wall-clock time. */
export function wallHour(wallMs: number): number {
  return new Date(wallMs).getUTCHours();
}

/** ISO weekday 1 (Monday) to 7 (Sunday) of a wall-clock time. */
export function wallIsoWeekday(wallMs: number): number {
  const day = new Date(wallMs).getUTCDay();
  return day === 0 ? 7 : day;
}
