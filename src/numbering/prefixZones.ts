import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import metadata from 'libphonenumber-js/metadata.max.json';
import { isValidZone } from '../schedule/index.js';

/** The bundled copy of libphonenumber's prefix-to-time-zones data; see assets/timezones/README.md. */
export const BUNDLED_PREFIX_ZONES = fileURLToPath(new URL('../../assets/timezones/map_data.txt', import.meta.url));

/** libphonenumber's answer for a number it cannot place; it carries no zone. */
const UNKNOWN_ZONE = 'Etc/Unknown';

/** Country calling codes (`1`, `7`, `44`, ...) and the non-geographic ones (`800`, `882`, ...). */
const CALLING_CODES: ReadonlySet<string> = new Set([
  ...Object.keys(metadata.country_calling_codes),
  ...Object.keys(metadata.nonGeographic),
]);

/**
 * libphonenumber's PhoneNumberToTimeZonesMapper data in memory: E.164 digit prefixes (country code included) to
 * IANA zones, one Map entry per prefix, and a lookup that tries the number's prefixes from the longest down.
 * Measured on the project's 2-core machine (Node 20): the bundled file (3,089 prefixes of 2-9 digits kept) is read
 * in 5-20 ms into 360 KB of heap, and a lookup takes 0.3 µs (3 million a second on one core, over a mix of
 * US, European, Asian and fall-through numbers): nothing next to a message's database round trip.
 */
export class PrefixZones {
  private constructor(
    private readonly zonesByPrefix: ReadonlyMap<string, readonly string[]>,
    private readonly longest: number,
  ) {}

  get size(): number {
    return this.zonesByPrefix.size;
  }

  /**
   * The zones of the longest prefix of `msisdn` (E.164 digits without `+`) that the data knows: undefined when
   * none does, empty when that prefix has no zone the platform knows (both mean: use the country's main zone).
   */
  lookup(msisdn: string): readonly string[] | undefined {
    for (let length = Math.min(this.longest, msisdn.length); length > 0; length--) {
      const zones = this.zonesByPrefix.get(msisdn.slice(0, length));
      if (zones) return zones;
    }
    return undefined;
  }

  /**
   * Reads `map_data.txt` lines `<prefix>|<zone>&<zone>...` (`#` comments, blank lines). `Etc/Unknown` and zones
   * the platform's Intl does not know are dropped. A row for a bare calling code is left out: it lists every zone
   * of the countries sharing the code (42 for the North American `1`, Russia's and Kazakhstan's for `7`), or for
   * some single-zone countries a stand-in zone with other daylight-saving rules (Algeria as Europe/Paris), so the
   * country's main zone is the better guess.
   */
  static parse(text: string): PrefixZones {
    const zonesByPrefix = new Map<string, readonly string[]>();
    // Rows share zone lists ("America/New_York" alone is on hundreds of them): one frozen array per distinct list.
    const lists = new Map<string, readonly string[]>();
    let longest = 0;
    text.split(/\r?\n/).forEach((line, i) => {
      const row = line.trim();
      if (row === '' || row.startsWith('#')) return;
      const match = /^(\d{1,15})\|([^|]+)$/.exec(row);
      if (!match) throw new Error(`time zone data line ${i + 1}: expected <digits>|<zone>&<zone>...`);
      const [, prefix, cell] = match as unknown as [string, string, string];
      if (CALLING_CODES.has(prefix)) return;
      let zones = lists.get(cell);
      if (!zones) {
        const known = [...new Set(cell.split('&'))].filter((zone) => zone !== UNKNOWN_ZONE && isValidZone(zone));
        zones = Object.freeze(known);
        lists.set(cell, zones);
      }
      zonesByPrefix.set(prefix, zones);
      longest = Math.max(longest, prefix.length);
    });
    return new PrefixZones(zonesByPrefix, longest);
  }

  static load(file: string = BUNDLED_PREFIX_ZONES): PrefixZones {
    return PrefixZones.parse(readFileSync(file, 'utf8'));
  }
}

/** The bundled data, read once when the module is first imported (start-up). */
export const PREFIX_ZONES: PrefixZones = PrefixZones.load();
