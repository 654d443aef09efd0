import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-herald-signature';
export const DELIVERY_HEADER = 'x-herald-delivery';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`. */
export function signCallback(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * How a receiver checks a callback: the signature matches the raw body and is no older than `toleranceS`. Herald
 * uses it in its tests; receivers can copy it (docs/callbacks.md).
 */
export function verifyCallbackSignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceS = 300,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(nowSeconds - t) > toleranceS) return false;
  const expected = Buffer.from(signCallback(secret, body, t).split('v1=')[1]!, 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
