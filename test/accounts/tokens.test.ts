import { describe, expect, it } from 'vitest';
import { issueToken, parseAuthorization } from '../../src/accounts/tokens.js';
import { secretMatches } from '../../src/util/secrets.js';

describe('tokens (DESIGN 2)', () => {
  it('issues base64("keyId:secret") tokens that work as HTTP Basic credentials', () => {
    const issued = issueToken('traffic');
    const decoded = Buffer.from(issued.token, 'base64').toString();
    expect(decoded.startsWith(`${issued.id}:`)).toBe(true);
    const parsed = parseAuthorization(`Basic ${issued.token}`);
    expect(parsed).toMatchObject({ scheme: 'basic', keyId: issued.id });
    if (typeof parsed === 'string') throw new Error('not parsed');
    expect(secretMatches(parsed.secret, issued.secretHash)).toBe(true);
    expect(secretMatches(`${parsed.secret}x`, issued.secretHash)).toBe(false);
    expect(issued.secretHash).toHaveLength(32);
  });

  it('issues a different secret every time', () => {
    const a = issueToken('system');
    const b = issueToken('system');
    expect(a.token).not.toBe(b.token);
    expect(a.id).toMatch(/^t2_/);
    expect(issueToken('verify').id).toMatch(/^t3_/);
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Basic', 'invalid'],
    ['Digest abc', 'invalid'],
    ['Basic !!!', 'invalid'],
    [`Basic ${Buffer.from('no-colon').toString('base64')}`, 'invalid'],
    [`Basic ${Buffer.from(':secret').toString('base64')}`, 'invalid'],
    [`Basic ${Buffer.from('id:').toString('base64')}`, 'invalid'],
  ])('%s -> %s', (header, expected) => {
    expect(parseAuthorization(header)).toBe(expected);
  });

  it('accepts Bearer with the same token', () => {
    const issued = issueToken('traffic');
    expect(parseAuthorization(`Bearer ${issued.token}`)).toMatchObject({ scheme: 'bearer', keyId: issued.id });
  });
});
