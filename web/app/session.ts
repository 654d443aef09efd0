import { apiClient, type Answer } from '../shared/apiClient.js';

/**
 * What POST /app/v1/session answers: the account and its two tokens for this browser session, `traffic` (TOKEN_1:
 * sending and reading messages) and `system` (TOKEN_2: the account's entities, statistics, callbacks).
 */
export type Session = Answer<'/app/v1/session', 'post'>;

const KEY = 'herald.app.session';

/** The stored session, unless it has expired. */
export function loadSession(): Session | undefined {
  try {
    const session = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    if (!session || typeof session.system !== 'string') return undefined;
    if (session.expiresAt && Date.parse(session.expiresAt) <= Date.now()) {
      sessionStorage.removeItem(KEY);
      return undefined;
    }
    return session;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session | undefined): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

let current: Session | undefined = loadSession();

export function setCurrentSession(session: Session | undefined): void {
  current = session;
  saveSession(session);
}

export function tokenOf(kind: 'traffic' | 'system'): string {
  if (!current) throw new Error('Not signed in');
  return current[kind];
}

/** Calls without a token (signing in). */
export const anonymous = apiClient(() => undefined);

/** Client API calls with TOKEN_1 (messages: send, list, get). */
export const traffic = apiClient(() => `Basic ${tokenOf('traffic')}`);

/** Client API calls with TOKEN_2 (sender names, templates, inbounds, statistics, callbacks, API keys). */
export const system = apiClient(() => `Basic ${tokenOf('system')}`);
