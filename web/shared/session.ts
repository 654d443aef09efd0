import { request } from './api.js';
import type { Credentials } from './apiClient.js';

/**
 * A site's session in this browser (docs/web.md, "Sessions"): the session is the server's HttpOnly cookie, shared by
 * every tab; the page keeps only what `GET <path>` answers of it, its CSRF token above all.
 */
export interface BrowserSession<S extends { readonly csrfToken: string | null }> {
  /** Keeps what the sign-in or `resume` answered (undefined: signed out). */
  setCurrent(session: S | undefined): void;
  /** The signed-in calls' credentials: the cookie goes by itself, the CSRF token with every call but a GET. */
  signedIn(): Credentials;
  /** The session of this browser's cookie, if it has a live one; a 401 here only says that there is none. */
  resume(): Promise<S | undefined>;
  /** Signs out: the server ends the session and clears the cookie (for the other tabs too). */
  end(): Promise<void>;
}

/** The session of the site whose session operations are at `path` (`/app/v1/session`, `/admin/v1/session`). */
export function browserSession<S extends { readonly csrfToken: string | null }>(path: string): BrowserSession<S> {
  let current: S | undefined;
  return {
    setCurrent: (session) => {
      current = session;
    },
    signedIn: () => ({ csrf: current?.csrfToken ?? '' }),
    resume: async () => {
      try {
        const session = await request<S>('GET', path);
        // Asked with a token rather than the cookie (the console's Bearer): not a session of this browser.
        return session.csrfToken === null ? undefined : session;
      } catch {
        return undefined;
      }
    },
    end: async () => {
      const csrf = current?.csrfToken ?? '';
      current = undefined;
      await request('DELETE', path, { csrf }).catch(() => undefined);
    },
  };
}
