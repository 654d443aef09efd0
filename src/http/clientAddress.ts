import { isIP } from 'node:net';

/**
 * Whose failures a failed authentication counts toward: an IPv4 address is itself (also when written IPv4-mapped,
 * `::ffff:192.0.2.1`, as a dual-stack listener reports it); an IPv6 address is its /64 (`2001:db8:1:2::/64`). A
 * subscriber or a host is given a whole /64 and may use any address in it: keyed per address, it would have 2^64
 * limits. Anything that is not an address is its own key.
 */
export function failureKeyOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const hextets = ipv6Hextets(address);
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return [hextets[6]! >> 8, hextets[6]! & 0xff, hextets[7]! >> 8, hextets[7]! & 0xff].join('.');
  }
  return `${hextets
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in any of its spellings (the URL parser writes it canonically first). */
function ipv6Hextets(address: string): number[] {
  const canonical = new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => parseInt(group, 16));
}
