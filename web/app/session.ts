import { request } from '../shared/api.js';
import { apiClient, type Answer, type Credentials } from '../shared/apiClient.js';

/**
 * The session the browser is signed in to, as GET /app/v1/session answers it: the account, the user, its end and the
 * CSRF token of its cookie. The session itself is the `herald_session` cookie (HttpOnly: no script reads it), shared
 * by every tab, so a new tab, a bookmark or a link opens signed in (docs/web.md, "Sessions").
 */
export type Session = Answer<'/app/v1/session', 'get'>;

let current: Session | undefined;

export function setCurrentSession(session: Session | undefined): void {
  current = session;
}

/** The signed-in calls' credentials: the cookie goes by itself, the CSRF token with every call but a GET. */
export const signedIn = (): Credentials => ({ csrf: current?.csrfToken ?? '' });

/**
 * The session of this browser's cookie, if it has a live one (a new tab, a reload): asked without signing the page
 * out on a 401, which only says that there is none.
 */
export async function resumeSession(): Promise<Session | undefined> {
  try {
    return await request<Session>('GET', '/app/v1/session');
  } catch {
    return undefined;
  }
}

/** Signs out: the server ends the session and clears the cookie (also of the other tabs). */
export async function endSession(): Promise<void> {
  const csrf = current?.csrfToken ?? '';
  current = undefined;
  await request('DELETE', '/app/v1/session', { csrf }).catch(() => undefined);
}

/** Calls without a token (signing in). */
export const anonymous = apiClient(() => ({}));

/**
 * Client API calls as TOKEN_1 (messages: send, list, get) and as TOKEN_2 (sender names, templates, inbounds,
 * statistics, callbacks, API keys): both through the session cookie, which holds the session's two tokens; the
 * server takes the one each operation needs.
 */
export const traffic = apiClient(signedIn);
export const system = traffic;
