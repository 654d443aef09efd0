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
});
