import { describe, expect, it } from 'vitest';
import { failureKeyOf } from '../../src/http/clientAddress.js';

describe('the failed-authentication key of a client address', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:c000:0201', '192.0.2.1'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s -> %s', (address, key) => {
    expect(failureKeyOf(address)).toBe(key);
  });
});
