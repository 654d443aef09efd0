import { apiClient } from '../shared/apiClient.js';

const KEY = 'herald.admin.token';

let token: string | undefined = sessionStorage.getItem(KEY) ?? undefined;

export function currentToken(): string | undefined {
  return token;
}

/** Keeps the operator token for this browser tab only (sessionStorage). */
export function setToken(next: string | undefined): void {
  token = next;
  if (next) sessionStorage.setItem(KEY, next);
  else sessionStorage.removeItem(KEY);
}

/** Operator API calls with `Authorization: Bearer <admin token>`. */
export const admin = apiClient(() => `Bearer ${token ?? ''}`);
