import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { normaliseDestination } from '../../src/numbering/destination.js';

describe('destination normalisation (DESIGN 4)', () => {
  it.each([
    ['79161234567', '79161234567', 'RU'],
    ['+79161234567', '79161234567', 'RU'],
    ['+7 916 123-45-67', '79161234567', 'RU'],
    ['+7 (916) 123-45-67', '79161234567', 'RU'],
    ['89161234567', '79161234567', 'RU'],
    ['8 916 123 45 67', '79161234567', 'RU'],
    ['+4915112345678', '4915112345678', 'DE'],
    ['12025550123', '12025550123', 'US'],
    ['77012345678', '77012345678', 'KZ'],
    ['84912345678', '84912345678', 'VN'],
    ['+84912345678', '84912345678', 'VN'],
  ])('%s -> %s', (input, msisdn, country) => {
    expect(normaliseDestination(input)).toEqual({ msisdn, country });
  });

  // DESIGN 12: 8XXXXXXXXXX -> 7XXXXXXXXXX only when the result is a valid Russian number and the input is not a
  // valid number as written with a `+`.
  it.each([
    ['84912345678', '84912345678', 'VN', 'a Vietnamese mobile, though 7 491 is Ryazan'],
    ['84951234567', '84951234567', 'VN', 'valid both ways (7 495 is Moscow): kept as written'],
    ['8 (499) 123-45-67', '84991234567', 'VN', 'valid both ways (7 499 is Moscow): kept as written'],
    ['81312345678', '81312345678', 'JP', 'a Tokyo landline; 7 131 is no Russian number'],
    ['80012345678', '80012345678', undefined, 'an international freephone number (+800)'],
    ['89161234567', '79161234567', 'RU', 'a Russian mobile'],
    ['84012345678', '74012345678', 'RU', 'a Kaliningrad landline; not a valid Vietnamese number'],
    ['88001234567', '78001234567', 'RU', 'Russian toll-free; +880 0 is no Bangladeshi number'],
  ] as [string, string, string | undefined, string][])(
    'rewrites an 8-number only when needed: %s -> %s %s (%s)',
    (input, msisdn, country) => {
      expect(normaliseDestination(input)).toEqual({ msisdn, country });
    },
  );

  it.each([
    ['', 'empty'],
    ['9161234567', 'Russian number without country code'],
    ['+89161234567', '8 with a plus is not the Russian trunk prefix'],
    ['7916123456', 'one digit short'],
    ['791612345678', 'one digit long'],
    ['70001234567', 'no such Russian range'],
    ['81012345678', 'an 8-number valid neither as written nor as Russian'],
    ['87012345678', 'a Kazakh national number: the rewrite is for Russian numbers only'],
    ['7916abc4567', 'letters'],
    ['+7.916.123.45.67', 'dots are not separators'],
    ['++79161234567', 'two plus signs'],
    [79161234567, 'a number, not a string'],
    [null, 'null'],
  ] as [unknown, string][])('refuses %s (%s)', (input) => {
    expect(normaliseDestination(input)).toBeUndefined();
  });

  it("gives the full parse's verdict for Russian mobiles on every 7-digit prefix, without parsing", () => {
    const full = (digits: string): [boolean, string | undefined] => {
      const phone = parsePhoneNumberFromString(`+${digits}`);
      return phone?.isValid() ? [true, phone.country] : [false, undefined];
    };
    const differences: string[] = [];
    let valid = 0;
    for (let prefix = 0; prefix < 100_000; prefix++) {
      const digits = `79${String(prefix).padStart(5, '0')}${String((prefix * 7919) % 10_000).padStart(4, '0')}`;
      const fast = normaliseDestination(digits);
      const [isValid, country] = full(digits);
      if (isValid) valid++;
      if ((fast !== undefined) !== isValid || (fast && (fast.msisdn !== digits || fast.country !== country)))
        differences.push(digits);
    }
    // Too short and too long, on a sample.
    for (const digits of ['7916123456', '791612345678', '7916123456789', '79']) {
      if ((normaliseDestination(digits) !== undefined) !== full(digits)[0]) differences.push(digits);
    }
    expect(differences).toEqual([]);
    // The sample holds both verdicts (7930... is not a valid range).
    expect(valid).toBeGreaterThan(90_000);
    expect(valid).toBeLessThan(100_000);
  });

  it('rewrites 8-numbers by the written rule on every 4-digit prefix, the fast path for 89... included', () => {
    const valid = (digits: string): [string, string | undefined] | undefined => {
      const phone = parsePhoneNumberFromString(`+${digits}`);
      return phone?.isValid() ? [phone.number.slice(1), phone.country] : undefined;
    };
    const byRule = (digits: string): [string, string | undefined] | undefined => {
      const asWritten = valid(digits);
      if (asWritten) return asWritten;
      const russian = valid(`7${digits.slice(1)}`);
      return russian?.[1] === 'RU' ? russian : undefined;
    };
    const differences: string[] = [];
    const verdicts = new Set<string>();
    for (let prefix = 8000; prefix < 9000; prefix++) {
      for (const suffix of ['1234567', '9876543', '0000000']) {
        const digits = `${prefix}${suffix}`;
        const expected = byRule(digits);
        const actual = normaliseDestination(digits);
        verdicts.add(expected ? (expected[0] === digits ? 'as written' : 'russian') : 'invalid');
        const got = actual ? [actual.msisdn, actual.country] : undefined;
        if (JSON.stringify(got) !== JSON.stringify(expected)) differences.push(digits);
      }
    }
    expect(differences).toEqual([]);
    expect([...verdicts].sort()).toEqual(['as written', 'invalid', 'russian']);
  });
});
