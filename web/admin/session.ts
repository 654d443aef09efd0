import { request } from '../shared/api.js';
import { apiClient, type Answer, type Credentials } from '../shared/apiClient.js';

/**
 * The console session, as GET /admin/v1/session answers it: its end and the CSRF token of the `herald_admin` cookie
 * (HttpOnly), which every tab of the browser shares (docs/web.md, "Sessions").
 */
export type ConsoleSession = Answer<'/admin/v1/session', 'get'>;

let current: ConsoleSession | undefined;

export function setCurrentSession(session: ConsoleSession | undefined): void {
  current = session;
}

/** The signed-in calls' credentials: the cookie goes by itself, the CSRF token with every call but a GET. */
export const signedIn = (): Credentials => ({ csrf: current?.csrfToken ?? '' });

/** The session of this browser's cookie, if it has a live one; a 401 here only says there is none. */
export async function resumeSession(): Promise<ConsoleSession | undefined> {
  try {
    const session = await request<ConsoleSession>('GET', '/admin/v1/session');
    return session.csrfToken === null ? undefined : session;
  } catch {
    return undefined;
  }
}

/** Signs out: the server ends the session and clears the cookie (also of the other tabs). */
export async function endSession(): Promise<void> {
  const csrf = current?.csrfToken ?? '';
  current = undefined;
  await request('DELETE', '/admin/v1/session', { csrf }).catch(() => undefined);
}

/** Operator API calls through the console's session cookie. */
export const admin = apiClient(signedIn);
