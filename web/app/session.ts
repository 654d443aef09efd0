import { apiClient, type Answer } from '../shared/apiClient.js';
import { browserSession } from '../shared/session.js';

/**
 * The session the browser is signed in to, as GET /app/v1/session answers it: the account, the user, its end and the
 * CSRF token of its cookie. The session itself is the `herald_session` cookie (HttpOnly: no script reads it), shared
 * by every tab, so a new tab, a bookmark or a link opens signed in (docs/web.md, "Sessions").
 */
export type Session = Answer<'/app/v1/session', 'get'>;

export const session = browserSession<Session>('/app/v1/session');

/** Calls without a token (signing in). */
export const anonymous = apiClient(() => ({}));

/**
 * Client API calls as TOKEN_1 (messages: send, list, get) and as TOKEN_2 (sender names, templates, inbounds,
 * statistics, callbacks, API keys): both through the session cookie, which holds the session's two tokens; the
 * server takes the one each operation needs.
 */
export const traffic = apiClient(session.signedIn);
export const system = traffic;
