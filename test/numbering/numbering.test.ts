import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLED_NUMBERING_PLAN, cellPieces, NumberingPlan, regionOf, tradeName } from '../../src/numbering/numberingPlan.js';
import { isMunicipality, SUBJECT_ZONES, WHOLE_COUNTRY } from '../../src/numbering/regionZones.js';
import { lookupSubscriber, mainZone } from '../../src/numbering/subscriber.js';
import { isValidZone } from '../../src/schedule/zonedTime.js';

const plan = NumberingPlan.load();

describe('Russian numbering plan', () => {
  it('loads every range of the bundled plan', () => {
    const rows = readFileSync(BUNDLED_NUMBERING_PLAN, 'utf8').split('\n').filter((l) => /^\d{3};/.test(l.replace(/^\ufeff/, '')));
    expect(plan.size).toBe(rows.length);
    expect(plan.size).toBeGreaterThan(16_000);
  });

  it('maps all 89 federal subjects to valid IANA zones', () => {
    expect(Object.keys(SUBJECT_ZONES)).toHaveLength(89);
    for (const zones of Object.values(SUBJECT_ZONES)) expect(zones.length).toBeGreaterThan(0);
    for (const zone of new Set(Object.values(SUBJECT_ZONES).flat())) expect(isValidZone(zone), zone).toBe(true);
  });

  it('maps a subject spanning several zones to all of them (tzdata), its capital\'s first', () => {
    expect(SUBJECT_ZONES['Республика Саха (Якутия)']).toEqual([
      'Asia/Yakutsk',
      'Asia/Khandyga',
      'Asia/Vladivostok',
      'Asia/Ust-Nera',
      'Asia/Srednekolymsk',
    ]);
    expect(SUBJECT_ZONES['Сахалинская область']).toEqual(['Asia/Sakhalin', 'Asia/Srednekolymsk']);
    const multi = Object.entries(SUBJECT_ZONES).filter(([, zones]) => zones.length > 1).map(([subject]) => subject);
    expect(multi.sort()).toEqual(['Республика Саха (Якутия)', 'Сахалинская область']);
  });

  it('gives a Sakha mobile every zone of Sakha, and a Sakhalin mobile both of Sakhalin\'s', () => {
    // 7 924 160-0000..179-9999: MegaFon, Sakha; 7 924 180-0000..199-9999: MegaFon, Sakhalin.
    expect(lookupSubscriber(plan, '79241700000', 'RU')).toEqual({
      country: 'RU',
      region: 'Республика Саха (Якутия)',
      brand: 'МЕГАФОН',
      zones: ['Asia/Yakutsk', 'Asia/Khandyga', 'Asia/Vladivostok', 'Asia/Ust-Nera', 'Asia/Srednekolymsk'],
    });
    expect(lookupSubscriber(plan, '79241850000', 'RU').zones).toEqual(['Asia/Sakhalin', 'Asia/Srednekolymsk']);
  });

  it('knows every subject named in the plan: each piece of a region cell is a subject, a municipality or the whole country', () => {
    const cells = new Set(
      readFileSync(BUNDLED_NUMBERING_PLAN, 'utf8').split('\n').slice(1).filter(Boolean).map((line) => line.split(';')[6]!.trim()),
    );
    for (const cell of cells) {
      for (const piece of cellPieces(cell)) {
        expect(piece in SUBJECT_ZONES || isMunicipality(piece) || piece === WHOLE_COUNTRY, `${piece} (in ${cell})`).toBe(true);
      }
    }
  });

  it('gives several zones for a cell naming several regions', () => {
    expect(regionOf('Архангельская область, Ненецкий автономный округ')).toEqual({
      region: 'Архангельская область, Ненецкий автономный округ',
      zones: ['Europe/Moscow'],
    });
    expect(regionOf('Город Москва, Калининградская область').zones).toEqual(['Europe/Moscow', 'Europe/Kaliningrad']);
    expect(regionOf('г. Норильск|г.о. город Норильск|Красноярский край')).toEqual({ region: 'Красноярский край', zones: ['Asia/Krasnoyarsk'] });
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

  it('falls back to the country main zone outside the plan', () => {
    expect(lookupSubscriber(plan, '74951234567', 'RU')).toEqual({ country: 'RU', region: null, brand: null, zones: ['Europe/Moscow'] });
    expect(lookupSubscriber(plan, '4915112345678', 'DE').zones).toEqual(['Europe/Berlin']);
    expect(lookupSubscriber(plan, '12025550123', 'US').zones).toEqual(['America/New_York']);
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

