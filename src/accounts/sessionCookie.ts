import { herald } from '../errors/catalogue.js';
import { parseToken, type PresentedCredentials, type TokenType } from './tokens.js';

/**
 * The personal account's session cookie holds the two tokens of one sign-in, `<traffic>.<system>` (tokens are
 * base64, which has no `.`): a page's request is authenticated as if it sent the one its operation takes.
 */
export function sessionCookieValue(session: { readonly traffic: string; readonly system: string }): string {
  return `${session.traffic}.${session.system}`;
}

/**
 * The token of the session cookie that an operation taking `allowed` uses: the first of them the cookie holds
 * (traffic or system; a verify-only operation -> 403 4030), `invalid` when the cookie cannot hold Herald tokens.
 */
export function sessionCookieCredentials(
  value: string,
  allowed: readonly TokenType[],
): PresentedCredentials | 'invalid' {
  const [traffic, system, ...rest] = value.split('.');
  if (traffic === undefined || system === undefined || rest.length > 0) return 'invalid';
  const type = allowed.find((kind) => kind === 'traffic' || kind === 'system');
  if (type === undefined) throw herald('accessDenied');
  const parsed = parseToken(type === 'traffic' ? traffic : system);
  return parsed === 'invalid' ? 'invalid' : { scheme: 'basic', ...parsed };
}
