import { request, type RequestOptions } from '../shared/api.js';

/** What POST /app/v1/session answers: the account and its two tokens for this browser session. */
export interface Session {
  readonly accountId: number;
  readonly accountName: string;
  readonly login: string | null;
  /** TOKEN_1: sending and reading messages. */
  readonly traffic: string;
  /** TOKEN_2: the account's entities, statistics, callbacks. */
  readonly system: string;
  readonly expiresAt: string;
}

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

function tokenOf(kind: 'traffic' | 'system'): string {
  if (!current) throw new Error('Not signed in');
  return current[kind];
}

/** A client API call with TOKEN_1 (messages: send, list, get). */
export function traffic<T>(method: string, path: string, options: Omit<RequestOptions, 'auth'> = {}): Promise<T> {
  return request<T>(method, path, { ...options, auth: `Basic ${tokenOf('traffic')}` });
}

/** A client API call with TOKEN_2 (sender names, templates, inbounds, statistics, callbacks, API keys). */
export function system<T>(method: string, path: string, options: Omit<RequestOptions, 'auth'> = {}): Promise<T> {
  return request<T>(method, path, { ...options, auth: `Basic ${tokenOf('system')}` });
}
