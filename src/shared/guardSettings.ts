import { TRAFFIC_TYPES, type TrafficType } from './trafficTypes.js';

/*
 * The fraud guard's and consent's settings of an account (DESIGN 20): the operator's, the client's (which may only
 * narrow the operator's) and the effective ones (the narrower of both). Pure: accounts/ stores both sides on the
 * account and loads the effective settings with the token; guard/ applies them.
 */

export type GeoMode = 'enforce' | 'monitor';
export interface GeoPermissions {
  /** ISO 3166-1 alpha-2 codes: only these countries; absent: every country not denied. */
  allow?: string[];
  deny?: string[];
  /** monitor: a message to a country not allowed is sent and counted (metrics, statistics), not refused. */
  readonly mode: GeoMode;
}

/** Messages per destination per account in any sliding hour; 0 turns a limit off (the operator's setting only). */
export interface FloodLimits {
  readonly identical: number;
  readonly any: number;
}

/** Ordered from the loosest to the strictest. */
export const PUMPING_MODES = ['off', 'monitor', 'hold'] as const;
export type PumpingMode = (typeof PUMPING_MODES)[number];
/** Pumping detection's settings (fraud/ gives them their meaning; DESIGN 20). */
export interface PumpingSettings {
  readonly mode: PumpingMode;
  readonly rangeFloor: number;
  readonly countryFloor: number;
  readonly factor: number;
}

export interface GuardSettings {
  readonly geoPermissions: GeoPermissions | null;
  /** null: the flood filter is off. */
  readonly flood: FloodLimits | null;
  /** Per currency (ISO 4217), per calendar day in the account's zone; null: no limit. */
  readonly dailySpendLimit: Record<string, number> | null;
  /** Traffic types sent only to numbers with a consent. */
  readonly consentRequired: TrafficType[];
  readonly pumping: PumpingSettings;
}

/** One side's stored settings: an absent field is the default (operator) or no narrowing (client). */
export type GuardSide = { -readonly [K in keyof GuardSettings]?: GuardSettings[K] };

/** 6 identical texts and 20 messages per destination per hour: above what one person asks for (DESIGN 20). */
export const DEFAULT_FLOOD: FloodLimits = Object.freeze({ identical: 6, any: 20 });
export const DEFAULT_PUMPING: PumpingSettings = Object.freeze({
  mode: 'hold',
  rangeFloor: 100,
  countryFloor: 300,
  factor: 10,
});
export const DEFAULT_GUARD: GuardSettings = Object.freeze({
  geoPermissions: null,
  flood: DEFAULT_FLOOD,
  dailySpendLimit: null,
  consentRequired: [],
  pumping: DEFAULT_PUMPING,
});

/** The operator's settings with defaults for what the operator did not set. */
export function operatorGuard(operator: GuardSide): GuardSettings {
  return {
    ...DEFAULT_GUARD,
    ...operator,
    flood: floodOf(operator.flood === undefined ? DEFAULT_FLOOD : operator.flood),
  };
}

/** The effective settings: the narrower of the operator's and the client's, field by field. */
export function effectiveGuard(operator: GuardSide, client: GuardSide): GuardSettings {
  const base = operatorGuard(operator);
  return {
    geoPermissions: narrowGeo(base.geoPermissions, client.geoPermissions ?? null),
    flood: narrowFlood(base.flood, client.flood ?? null),
    dailySpendLimit: narrowSpend(base.dailySpendLimit, client.dailySpendLimit ?? null),
    consentRequired: TRAFFIC_TYPES.filter(
      (t) => base.consentRequired.includes(t) || (client.consentRequired ?? []).includes(t),
    ),
    pumping: client.pumping ? narrowPumping(base.pumping, client.pumping) : base.pumping,
  };
}

/**
 * The first setting of the client's that is looser than the operator's (named as in the API, e.g.
 * `geoPermissions.allow`), or null. A client's null or absent field adds no narrowing and loosens nothing.
 */
export function loosenedSetting(operator: GuardSide, client: GuardSide): string | null {
  const base = operatorGuard(operator);
  const geo = client.geoPermissions;
  if (geo && base.geoPermissions) {
    const op = base.geoPermissions;
    if (geo.allow && op.allow && !geo.allow.every((c) => op.allow!.includes(c))) return 'geoPermissions.allow';
    if (op.deny && !op.deny.every((c) => geo.deny?.includes(c) || (geo.allow && !geo.allow.includes(c))))
      return 'geoPermissions.deny';
    if (op.mode === 'enforce' && geo.mode === 'monitor') return 'geoPermissions.mode';
  }
  if (client.flood && base.flood) {
    for (const key of ['identical', 'any'] as const) {
      const limit = base.flood[key];
      if (limit > 0 && (client.flood[key] === 0 || client.flood[key] > limit)) return `flood.${key}`;
    }
  }
  if (client.dailySpendLimit && base.dailySpendLimit) {
    for (const [currency, limit] of Object.entries(base.dailySpendLimit)) {
      const own = client.dailySpendLimit[currency];
      if (own !== undefined && own > limit) return `dailySpendLimit.${currency}`;
    }
  }
  if (client.consentRequired && !base.consentRequired.every((t) => client.consentRequired!.includes(t)))
    return 'consentRequired';
  if (client.pumping) {
    const op = base.pumping;
    const own = client.pumping;
    if (PUMPING_MODES.indexOf(own.mode) < PUMPING_MODES.indexOf(op.mode)) return 'pumping.mode';
    for (const key of ['rangeFloor', 'countryFloor', 'factor'] as const)
      if (own[key] > op[key]) return `pumping.${key}`;
  }
  return null;
}

/** A flood setting whose two limits are 0 is off (null). */
function floodOf(flood: FloodLimits | null): FloodLimits | null {
  return flood === null || (flood.identical === 0 && flood.any === 0) ? null : flood;
}

function narrowGeo(op: GeoPermissions | null, own: GeoPermissions | null): GeoPermissions | null {
  if (!op || !own) return op ?? own;
  const allow = op.allow && own.allow ? op.allow.filter((c) => own.allow!.includes(c)) : (op.allow ?? own.allow);
  const deny = [...new Set([...(op.deny ?? []), ...(own.deny ?? [])])];
  return {
    ...(allow ? { allow } : {}),
    ...(deny.length > 0 ? { deny } : {}),
    mode: op.mode === 'enforce' || own.mode === 'enforce' ? 'enforce' : 'monitor',
  };
}

/** The lower of two limits where 0 is no limit. */
const lowerLimit = (a: number, b: number): number => (a === 0 ? b : b === 0 ? a : Math.min(a, b));

function narrowFlood(op: FloodLimits | null, own: FloodLimits | null): FloodLimits | null {
  if (!op || !own) return op ?? own;
  return { identical: lowerLimit(op.identical, own.identical), any: lowerLimit(op.any, own.any) };
}

function narrowSpend(
  op: Record<string, number> | null,
  own: Record<string, number> | null,
): Record<string, number> | null {
  if (!op || !own) return op ?? own;
  const out: Record<string, number> = { ...op };
  for (const [currency, limit] of Object.entries(own)) out[currency] = Math.min(limit, out[currency] ?? limit);
  return out;
}

function narrowPumping(op: PumpingSettings, own: PumpingSettings): PumpingSettings {
  return {
    mode: PUMPING_MODES[Math.max(PUMPING_MODES.indexOf(op.mode), PUMPING_MODES.indexOf(own.mode))]!,
    rangeFloor: Math.min(op.rangeFloor, own.rangeFloor),
    countryFloor: Math.min(op.countryFloor, own.countryFloor),
    factor: Math.min(op.factor, own.factor),
  };
}
