import { describe, expect, it } from 'vitest';
import { callbackUrlProblem, isPrivateAddress } from '../../src/callbacks/callbackUrl.js';
import { maskCallbackUrl } from '../../src/shared/callbackUrlMask.js';

describe('private addresses of callback URLs', () => {
  it.each([
    ['IPv4 private', '10.1.2.3'],
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 CGNAT', '100.64.0.1'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 unique local', 'fd00::1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 link-local with a zone', 'fe80::1%eth0'],
    ['IPv6 site-local (deprecated)', 'fec0::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped, dotted', '::ffff:10.0.0.1'],
    ['IPv4-mapped, hex (as URL parsing writes it)', '::ffff:a00:1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-translated', '::ffff:0:192.168.1.1'],
    ['IPv4-compatible, dotted', '::10.0.0.1'],
    ['IPv4-compatible, hex', '::a9fe:a9fe'],
    ['NAT64, dotted', '64:ff9b::10.0.0.1'],
    ['NAT64, hex', '64:ff9b::7f00:1'],
    ['NAT64 link-local (cloud metadata)', '64:ff9b::169.254.169.254'],
    ['NAT64 local use, any address', '64:ff9b:1::808:808'],
    ['NAT64 local use, longer prefix', '64:ff9b:1:ffff::1'],
    ['6to4 of a private address', '2002:c0a8:101::1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4, written out', '2002:0a00:0001:0000:0000:0000:0000:0001'],
    [
      'Teredo with a private client',
      `2001:0:4136:e378:8000:63bf:${(0xc0a8 ^ 0xffff).toString(16)}:${(0x0101 ^ 0xffff).toString(16)}`,
    ],
  ])('refuses %s (%s)', (_name, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['IPv4 public', '8.8.8.8'],
    ['IPv6 public', '2a00:1450:4001:80b::200e'],
    ['IPv4-mapped public', '::ffff:8.8.8.8'],
    ['IPv4-compatible public', '::8.8.8.8'],
    ['NAT64 of a public address', '64:ff9b::808:808'],
    ['next to NAT64 (not the well-known prefix)', '64:ff9c::a00:1'],
    ['6to4 of a public address', '2002:808:808::1'],
    [
      'Teredo with a public client',
      `2001:0:4136:e378:8000:63bf:${(0x0808 ^ 0xffff).toString(16)}:${(0x0808 ^ 0xffff).toString(16)}`,
    ],
    ['a host name', 'example.com'],
  ])('lets through %s (%s)', (_name, address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    ['http://[64:ff9b::10.0.0.1]/cb', '64:ff9b::a00:1'],
    ['http://[2002:c0a8:101::1]:8080/cb', '2002:c0a8:101::1'],
    ['http://[::127.0.0.1]/cb', '::7f00:1'],
    ['http://[::ffff:0:0a00:1]/cb', '::ffff:0:a00:1'],
    ['https://[64:ff9b:1::1]/cb', '64:ff9b:1::1'],
  ])('refuses the callback URL %s', (url, host) => {
    expect(callbackUrlProblem(url, false)).toBe(`private address ${host} is not allowed`);
    expect(callbackUrlProblem(url, true)).toBeUndefined();
  });

  it('takes a URL with an embedded public address', () => {
    expect(callbackUrlProblem('http://[64:ff9b::8.8.8.8]/cb', false)).toBeUndefined();
    expect(callbackUrlProblem('http://[2002:808:808::1]/cb', false)).toBeUndefined();
  });
});

describe('masking callback URLs', () => {
  it.each([
    ['a user name alone: replaced whole', 'http://sk_live_X@host/hook', 'http://***@host/hook'],
    ['login and password: the password', 'https://login:pa55@host/hook', 'https://login:***@host/hook'],
    ['the spec example', 'http://sk_live_X@host/hook?token=abc', 'http://***@host/hook?token=***'],
    [
      'secret-looking parameters, in any case, the others as written',
      'https://h/x?order=7&Api_Key=zz&q=a%26b+c&X-Amz-Signature=1&client_secret=s&password=p&pass=q&sig=2&auth=3&access_token=4&sessionId=5',
      'https://h/x?order=7&Api_Key=***&q=a%26b+c&X-Amz-Signature=***&client_secret=***&password=***&pass=***&sig=***&auth=***&access_token=***&sessionId=***',
    ],
    ['a percent-encoded name', 'https://h/x?t%6Fken=5', 'https://h/x?t%6Fken=***'],
    ['a parameter without a value, and an empty one', 'https://h/x?token&key=', 'https://h/x?token&key=***'],
    ['nothing to hide: as given', 'http://h', 'http://h'],
    ['nothing to hide, with a query', 'https://h/x?order=7&lang=en', 'https://h/x?order=7&lang=en'],
    ['not a URL', 'junk //user@h?token=1&a=2', 'junk //***@h?token=***&a=2'],
  ])('%s', (_name, url, masked) => {
    expect(maskCallbackUrl(url)).toBe(masked);
  });
});
