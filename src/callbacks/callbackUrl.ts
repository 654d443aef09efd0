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
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** True for loopback, private, link-local, carrier-grade NAT, multicast and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return PRIVATE.check(address, 'ipv4');
  if (version === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
    return PRIVATE.check(address, 'ipv6');
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

/** The URL with its password replaced, for logs, errors and API output. */
export function maskCallbackUrl(value: string): string {
  try {
    const url = new URL(value);
    if (!url.password && !url.username) return value;
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return value.replace(/\/\/[^/@]*@/, '//***@');
  }
}
