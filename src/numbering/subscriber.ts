import { getCountryCallingCode, type CountryCode } from 'libphonenumber-js/max';
import { COUNTRY_ZONES } from './countryZones.js';
import type { NumberingPlan } from './numberingPlan.js';
import { PREFIX_ZONES, type PrefixZones } from './prefixZones.js';

/** Where a subscriber is: filled on each message, and the zones its send window is read in. */
export interface Subscriber {
  readonly country: string | null;
  readonly region: string | null;
  readonly brand: string | null;
  /** IANA zones; never empty (the country's main zone when nothing finer is known). */
  readonly zones: readonly string[];
}

const MOSCOW = 'Europe/Moscow';

/**
 * Country, region, operator and time zones of a normalised number. Russian mobiles (+7 9xx) come from the
 * numbering plan (libphonenumber puts them all in Moscow); the zones of every other number, and of a mobile outside
 * the plan, come from libphonenumber's prefix-to-zones data; where neither knows a zone, the country's main zone.
 */
export function lookupSubscriber(
  plan: NumberingPlan,
  msisdn: string,
  country: string | null,
  prefixZones: PrefixZones = PREFIX_ZONES,
): Subscriber {
  if (country === 'RU' && msisdn.length === 11 && msisdn[1] === '9') {
    const range = plan.lookupNational(Number(msisdn.slice(1)));
    if (range) {
      return {
        country,
        region: range.region,
        brand: range.brand,
        zones: range.zones.length > 0 ? range.zones : [MOSCOW],
      };
    }
  }
  const zones = prefixZones.lookup(msisdn);
  return { country, region: null, brand: null, zones: zones && zones.length > 0 ? zones : [mainZone(country)] };
}

/** The zone most of a country's population lives in; UTC when the country is unknown. */
export function mainZone(country: string | null): string {
  if (!country) return 'UTC';
  return COUNTRY_ZONES[country] ?? 'UTC';
}

export function callingCode(country: string): string | undefined {
  try {
    return getCountryCallingCode(country as CountryCode);
  } catch {
    return undefined;
  }
}
