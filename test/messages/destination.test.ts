import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { normaliseDestination } from '../../src/messages/destination.js';

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
  ])('%s -> %s', (input, msisdn, country) => {
    expect(normaliseDestination(input)).toEqual({ msisdn, country });
  });

  it.each([
    ['', 'empty'],
    ['9161234567', 'Russian number without country code'],
    ['+89161234567', '8 with a plus is not the Russian trunk prefix'],
    ['7916123456', 'one digit short'],
    ['791612345678', 'one digit long'],
    ['70001234567', 'no such Russian range'],
    ['7916abc4567', 'letters'],
    ['+7.916.123.45.67', 'dots are not separators'],
    ['++79161234567', 'two plus signs'],
    [79161234567, 'a number, not a string'],
    [null, 'null'],
  ] as [unknown, string][])('refuses %s (%s)', (input) => {
    expect(normaliseDestination(input)).toBeUndefined();
  });

  it('gives the full parse\'s verdict for Russian mobiles on every 7-digit prefix, without parsing', () => {
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
      if ((fast !== undefined) !== isValid || (fast && (fast.msisdn !== digits || fast.country !== country))) differences.push(digits);
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
});
