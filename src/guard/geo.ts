import type { GeoPermissions } from '../shared/guardSettings.js';

/** What the geo rule says of a destination country (null: unknown to the numbering plan). */
export type GeoVerdict = 'allowed' | 'refused' | 'monitored';

/**
 * A country denied, or outside a list of allowed ones (an unknown country is outside every list), is refused in
 * enforce mode and let through, counted, in monitor mode.
 */
export function geoVerdict(geo: GeoPermissions | null, country: string | null): GeoVerdict {
  if (!geo) return 'allowed';
  const denied =
    (country !== null && geo.deny?.includes(country)) ||
    (geo.allow !== undefined && !geo.allow.includes(country ?? ''));
  if (!denied) return 'allowed';
  return geo.mode === 'enforce' ? 'refused' : 'monitored';
}
