import { BlockList, isIP } from 'node:net';

/** Longest callback URL accepted; URLs beyond a few kilobytes are refused by common servers and proxies anyway. */
export const CALLBACK_URL_MAX_LENGTH = 2048;

// Characters RFC 3986 allows in a URI: unreserved, reserved and percent-encodings.
const RFC3986 = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address that `isIP` accepted (a zone id, `%eth0`, is dropped). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head, tail] = text.split('::') as [string, string | undefined];
  if (tail === undefined) return parse(head);
  const before = parse(head);
  const after = parse(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * The IPv4 address an IPv6 address carries to its destination, for the forms a host or a gateway on the way turns
 * back into IPv4: IPv4-mapped `::ffff:0:0/96` and IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible `::/96`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16` (bits 16-47) and Teredo `2001::/32` (the client, bits 96-127 inverted).
 */
function embeddedIpv4(g: readonly number[]): string | undefined {
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((group) => group === 0);
  const ipv4 = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) return ipv4(g[6]!, g[7]!);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return ipv4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return ipv4(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return undefined;
}

/**
 * True for loopback, private, link-local, carrier-grade NAT, multicast and unspecified addresses, and for IPv6
 * addresses that carry such an IPv4 address (embeddedIpv4) or belong to the local-use NAT64 prefix
 * `64:ff9b:1::/48` or the old site-local `fec0::/10`.
 */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return PRIVATE.check(address, 'ipv4');
  if (version === 6) {
    const embedded = embeddedIpv4(ipv6Groups(address));
    if (embedded !== undefined && PRIVATE.check(embedded, 'ipv4')) return true;
    return PRIVATE.check(address.split('%')[0]!, 'ipv6');
  }
  return false;
}

/** The host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks a callback URL against spec section 6.1 (RFC 3986, http or https, optional login:password, explicit IP
 * and port allowed) and, unless `allowPrivate`, refuses literal private addresses and `localhost`. Host names are
 * checked again when the callback is delivered, after resolution. Returns the reason it is refused, or undefined.
 */
export function callbackUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  if (value.length > CALLBACK_URL_MAX_LENGTH) return `longer than ${CALLBACK_URL_MAX_LENGTH} characters`;
  if (!RFC3986.test(value) || BAD_PERCENT.test(value)) return 'not a valid URL (RFC 3986)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a valid URL (RFC 3986)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https are allowed';
  if (url.hostname === '') return 'no host';
  if (url.hash) return 'a fragment is not allowed';
  if (!allowPrivate) {
    // A trailing dot names the same host ("localhost." is localhost).
    const host = bareHost(url).toLowerCase().replace(/\.+$/, '');
    if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
      return `private address ${host} is not allowed`;
    }
  }
  return undefined;
}
