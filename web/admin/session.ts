import { apiClient, type Answer } from '../shared/apiClient.js';
import { browserSession } from '../shared/session.js';

/**
 * The console session, as GET /admin/v1/session answers it: its end and the CSRF token of the `herald_admin` cookie
 * (HttpOnly), which every tab of the browser shares (docs/web.md, "Sessions").
 */
export type ConsoleSession = Answer<'/admin/v1/session', 'get'>;

export const session = browserSession<ConsoleSession>('/admin/v1/session');

/** Operator API calls through the console's session cookie. */
export const admin = apiClient(session.signedIn);
