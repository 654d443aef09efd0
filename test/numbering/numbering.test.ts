import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  BUNDLED_NUMBERING_PLAN,
  cellPieces,
  NumberingPlan,
  regionOf,
  tradeName,
} from '../../src/numbering/numberingPlan.js';
import { isMunicipality, SUBJECT_ZONES, WHOLE_COUNTRY } from '../../src/numbering/regionZones.js';
import { BUNDLED_PREFIX_ZONES, PREFIX_ZONES, PrefixZones } from '../../src/numbering/prefixZones.js';
import { lookupSubscriber, mainZone } from '../../src/numbering/subscriber.js';
import { isValidZone } from '../../src/schedule/zonedTime.js';

const plan = NumberingPlan.load();

describe('Russian numbering plan', () => {
  it('loads every range of the bundled plan', () => {
    const rows = readFileSync(BUNDLED_NUMBERING_PLAN, 'utf8')
      .split('\n')
      .filter((l) => /^\d{3};/.test(l.replace(/^\ufeff/, '')));
    expect(plan.size).toBe(rows.length);
    expect(plan.size).toBeGreaterThan(16_000);
  });

  it('keeps a few hundred kilobytes once loaded, not the text it was read from (3.9 MB in the heap)', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heapUsed = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = heapUsed();
    const loaded = Array.from({ length: 5 }, () => NumberingPlan.load());
    const held = (heapUsed() - before) / loaded.length;
    expect(loaded.every((each) => each.size === plan.size)).toBe(true);
    expect(held).toBeLessThan(1_500_000);
  });

  it('maps all 89 federal subjects to valid IANA zones', () => {
    expect(Object.keys(SUBJECT_ZONES)).toHaveLength(89);
    for (const zones of Object.values(SUBJECT_ZONES)) expect(zones.length).toBeGreaterThan(0);
    for (const zone of new Set(Object.values(SUBJECT_ZONES).flat())) expect(isValidZone(zone), zone).toBe(true);
  });

  it("maps a subject spanning several zones to all of them (tzdata), its capital's first", () => {
    expect(SUBJECT_ZONES['Республика Саха (Якутия)']).toEqual([
      'Asia/Yakutsk',
      'Asia/Khandyga',
      'Asia/Vladivostok',
      'Asia/Ust-Nera',
      'Asia/Srednekolymsk',
    ]);
    expect(SUBJECT_ZONES['Сахалинская область']).toEqual(['Asia/Sakhalin', 'Asia/Srednekolymsk']);
    const multi = Object.entries(SUBJECT_ZONES)
      .filter(([, zones]) => zones.length > 1)
      .map(([subject]) => subject);
    expect(multi.sort()).toEqual(['Республика Саха (Якутия)', 'Сахалинская область']);
  });

  it("gives a Sakha mobile every zone of Sakha, and a Sakhalin mobile both of Sakhalin's", () => {
    // 7 924 160-0000..179-9999: MegaFon, Sakha; 7 924 180-0000..199-9999: MegaFon, Sakhalin.
    expect(lookupSubscriber(plan, '79241700000', 'RU')).toEqual({
      country: 'RU',
      region: 'Республика Саха (Якутия)',
      brand: 'МЕГАФОН',
      zones: ['Asia/Yakutsk', 'Asia/Khandyga', 'Asia/Vladivostok', 'Asia/Ust-Nera', 'Asia/Srednekolymsk'],
    });
    expect(lookupSubscriber(plan, '79241850000', 'RU').zones).toEqual(['Asia/Sakhalin', 'Asia/Srednekolymsk']);
  });

  it('knows every subject named in the plan: each piece of a region cell is a subject, municipality or country', () => {
    const cells = new Set(
      readFileSync(BUNDLED_NUMBERING_PLAN, 'utf8')
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(';')[6]!.trim()),
    );
    for (const cell of cells) {
      for (const piece of cellPieces(cell)) {
        expect(
          piece in SUBJECT_ZONES || isMunicipality(piece) || piece === WHOLE_COUNTRY,
          `${piece} (in ${cell})`,
        ).toBe(true);
      }
    }
  });

  it('gives several zones for a cell naming several regions', () => {
    expect(regionOf('Архангельская область, Ненецкий автономный округ')).toEqual({
      region: 'Архангельская область, Ненецкий автономный округ',
      zones: ['Europe/Moscow'],
    });
    expect(regionOf('Город Москва, Калининградская область').zones).toEqual(['Europe/Moscow', 'Europe/Kaliningrad']);
    expect(regionOf('г. Норильск|г.о. город Норильск|Красноярский край')).toEqual({
      region: 'Красноярский край',
      zones: ['Asia/Krasnoyarsk'],
    });
    expect(regionOf('Российская Федерация')).toEqual({ region: 'Российская Федерация', zones: [] });
  });

  it.each([
    ['79161234567', 'Город Москва, Московская область', 'МТС', ['Europe/Moscow']],
    ['79140000000', 'Иркутская область', 'МТС', ['Asia/Irkutsk']],
    ['79831234567', 'Новосибирская область', 'МТС', ['Asia/Novosibirsk']],
    ['79001234567', 'Ростовская область', 'Т2 Мобайл', ['Europe/Moscow']],
  ])('%s -> %s, %s, %j', (msisdn, region, brand, zones) => {
    expect(lookupSubscriber(plan, msisdn, 'RU')).toEqual({ country: 'RU', region, brand, zones });
  });

  it('gives numbers outside the plan the zones of their prefix: a Moscow landline is in Moscow', () => {
    expect(lookupSubscriber(plan, '74951234567', 'RU')).toEqual({
      country: 'RU',
      region: null,
      brand: null,
      zones: ['Europe/Moscow'],
    });
    expect(lookupSubscriber(plan, '73432123456', 'RU').zones).toEqual(['Asia/Yekaterinburg']);
    expect(mainZone('AU')).toBe('Australia/Sydney');
    expect(mainZone('IN')).toBe('Asia/Kolkata');
    expect(mainZone(null)).toBe('UTC');
  });

  it('uses one trade name per operator', () => {
    expect(tradeName('ПАО "МТС"')).toBe('МТС');
    expect(tradeName('ООО «Т2 Мобайл»')).toBe('Т2 Мобайл');
    const brands = new Set<string>();
    for (let n = 9_000_000_000; n < 9_999_999_999; n += 1_234_567) {
      const range = plan.lookupNational(n);
      if (range) brands.add(range.brand);
    }
    expect(brands.has('Т2 МОБАЙЛ')).toBe(false);
  });

  it('finds a range by binary search at both edges of a range', () => {
    // 900 0000000-0061999 and 900 0062000-0062999 are different regions.
    expect(plan.lookupNational(9_000_061_999)?.region).toBe('Краснодарский край');
    expect(plan.lookupNational(9_000_062_000)?.region).toBe('Ростовская область');
  });
});

describe("time zones from the number's prefix (libphonenumber, DESIGN 4 and 12)", () => {
  it("gives a US number its area code's zone, not the country's", () => {
    expect(lookupSubscriber(plan, '12135550123', 'US').zones).toEqual(['America/Los_Angeles']);
    expect(lookupSubscriber(plan, '13105550123', 'US').zones).toEqual(['America/Los_Angeles']);
    expect(lookupSubscriber(plan, '12125550123', 'US').zones).toEqual(['America/New_York']);
    expect(lookupSubscriber(plan, '13125550123', 'US').zones).toEqual(['America/Chicago']);
    expect(lookupSubscriber(plan, '16045550123', 'CA').zones).toEqual(['America/Vancouver']);
  });

  it('gives a prefix spanning several zones all of them', () => {
    // Part of Idaho's 208 area is on Mountain time, part on Pacific time.
    expect(lookupSubscriber(plan, '12083201234', 'US').zones).toEqual(['America/Boise', 'America/Los_Angeles']);
    // Australia's 08 area: South Australia (UTC+9:30) and Western Australia (UTC+8).
    expect(lookupSubscriber(plan, '61892345678', 'AU').zones).toEqual(['Australia/Adelaide', 'Australia/Perth']);
    // Spain: the Canary Islands are an hour behind the mainland.
    expect(lookupSubscriber(plan, '34928123456', 'ES').zones).toEqual(['Atlantic/Canary']);
  });

  it('gives a number of a single-zone country that zone', () => {
    expect(lookupSubscriber(plan, '4741234567', 'NO').zones).toEqual(['Europe/Oslo']);
    expect(lookupSubscriber(plan, '4779012345', 'SJ').zones).toEqual(['Arctic/Longyearbyen']);
  });

  it("falls back to the country's main zone where the prefix maps to no zone", () => {
    // Toll-free +1 800 has no area: the country, not the 42 zones that libphonenumber lists for +1.
    expect(lookupSubscriber(plan, '18005550123', 'US').zones).toEqual(['America/New_York']);
    expect(lookupSubscriber(plan, '4915112345678', 'DE').zones).toEqual(['Europe/Berlin']);
    expect(lookupSubscriber(plan, '819012345678', 'JP').zones).toEqual(['Asia/Tokyo']);
    const data = PrefixZones.parse(
      [
        '# comment',
        '',
        '1|America/New_York&America/Chicago',
        '1999|Etc/Unknown',
        '1998|Mars/Olympus_Mons',
        '1997|Mars/Olympus_Mons&America/Chicago',
      ].join('\n'),
    );
    expect(data.size).toBe(3);
    expect(lookupSubscriber(plan, '19995550123', 'US', data).zones).toEqual(['America/New_York']);
    expect(lookupSubscriber(plan, '19985550123', 'US', data).zones).toEqual(['America/New_York']);
    expect(lookupSubscriber(plan, '19975550123', 'US', data).zones).toEqual(['America/Chicago']);
    expect(lookupSubscriber(plan, '19965550123', 'US', data).zones).toEqual(['America/New_York']);
    expect(lookupSubscriber(plan, '19965550123', null, data).zones).toEqual(['UTC']);
  });

  it('matches the longest prefix', () => {
    const rows = ['1208|America/Denver', '12083|America/Boise&America/Los_Angeles', '1208320|America/Boise'];
    const data = PrefixZones.parse(rows.join('\n'));
    expect(data.lookup('12084001234')).toEqual(['America/Denver']);
    expect(data.lookup('12083301234')).toEqual(['America/Boise', 'America/Los_Angeles']);
    expect(data.lookup('12083201234')).toEqual(['America/Boise']);
    expect(data.lookup('1208')).toEqual(['America/Denver']);
    expect(data.lookup('120')).toBeUndefined();
  });

  it('refuses a malformed data line', () => {
    expect(() => PrefixZones.parse('1201|America/New_York\n12x2|America/New_York')).toThrow('time zone data line 2');
  });

  it('loads the bundled data: every zone is known to the platform, and no row lists a bare calling code', () => {
    expect(PREFIX_ZONES.size).toBeGreaterThan(3000);
    const rows = readFileSync(BUNDLED_PREFIX_ZONES, 'utf8')
      .split('\n')
      .filter((line) => /^\d/.test(line));
    let kept = 0;
    for (const row of rows) {
      const [prefix, zones] = row.split('|') as [string, string];
      const found = PREFIX_ZONES.lookup(prefix);
      if (!found) continue;
      kept++;
      expect(found, row).toEqual(zones.split('&'));
    }
    expect(kept).toBe(PREFIX_ZONES.size);
    expect(PREFIX_ZONES.lookup('1')).toBeUndefined();
    expect(PREFIX_ZONES.lookup('7')).toBeUndefined();
  });
});
