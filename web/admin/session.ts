import { request, type RequestOptions } from '../shared/api.js';

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

/** An operator API call with `Authorization: Bearer <admin token>`. */
export function admin<T>(method: string, path: string, options: Omit<RequestOptions, 'auth'> = {}): Promise<T> {
  return request<T>(method, path, { ...options, auth: `Bearer ${token ?? ''}` });
}
