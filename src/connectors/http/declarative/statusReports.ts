import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierReceipt } from '../../connector.js';
import type { CompiledHttpConnector, CompiledReports } from './httpConnectorConfig.js';
import { jsonPathAll, jsonPathFirst } from './jsonPath.js';
import { parseExact } from '../jsonText.js';

/**
 * Whether a status webhook's raw body carries the provider's signature as its connector describes it. `url` is the
 * address the provider called, as it knows it (Twilio signs it with the form's fields).
 */
export function statusReportSigned(
  compiled: CompiledHttpConnector,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
  url: string,
): boolean {
  const signature = compiled.settings.status.webhook?.signature;
  if (!signature) return false;
  if (signature.kind === 'none') return true;
  const secret = compiled.settings.secrets![signature.secret]!;
  if (signature.kind === 'twilio') {
    const given = headers['x-twilio-signature'];
    if (typeof given !== 'string') return false;
    // The URL, then every field sorted by name, name and value, nothing between (Twilio's webhook security page).
    const fields = [...new URLSearchParams(raw.toString('utf8'))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const signed = url + fields.map(([name, value]) => name + value).join('');
    return sameDigest(Buffer.from(given, 'base64'), createHmac('sha1', secret).update(signed).digest());
  }
  const given = headers[signature.header.toLowerCase()];
  if (typeof given !== 'string') return false;
  const prefix = signature.prefix ?? '';
  if (!given.startsWith(prefix)) return false;
  const digest = createHmac('sha256', secret).update(raw).digest();
  return sameDigest(Buffer.from(given.slice(prefix.length), signature.encoding ?? 'hex'), digest);
}

function sameDigest(received: Buffer, expected: Buffer): boolean {
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/** A status webhook's body as its connector says the provider writes it: JSON, or a form read as an object. */
export function statusReportBody(compiled: CompiledHttpConnector, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (compiled.settings.status.webhook?.encoding === 'form') return Object.fromEntries(new URLSearchParams(text));
  // Exact: a provider's 64-bit ids (Devino's) must find their submissions.
  return text ? parseExact(text) : undefined;
}

/** A provider's report read: the receipt it makes, if its status means one, and the price it gives. */
export interface StatusReport {
  readonly carrierId: string;
  readonly receipt: CarrierReceipt | undefined;
  readonly price: number | undefined;
}

/**
 * The reports in a webhook's body or a poll's answer: each item (at `items`) with an id and a status; a status the
 * map makes `sent`, or does not name, makes no receipt (no news), but its price is still read.
 */
export function statusReports(
  compiled: CompiledHttpConnector,
  paths: CompiledReports,
  payload: unknown,
  at: Date,
): StatusReport[] {
  const reports: StatusReport[] = [];
  for (const item of jsonPathAll(paths.items, payload)) {
    const carrierId = jsonPathFirst(paths.id, item);
    const theirs = jsonPathFirst(paths.status, item);
    if (typeof carrierId !== 'string' && typeof carrierId !== 'number') continue;
    const state = theirs === undefined || theirs === null ? undefined : compiled.statusMap.get(String(theirs));
    const code = paths.errorCode && jsonPathFirst(paths.errorCode, item);
    const receipt: CarrierReceipt | undefined =
      state && state !== 'sent'
        ? {
            connectorId: compiled.settings.id,
            carrierId: String(carrierId),
            state,
            at,
            errorCode:
              typeof code === 'number' ? code : typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : null,
          }
        : undefined;
    reports.push({
      carrierId: String(carrierId),
      receipt,
      price: priceOf(paths.price && jsonPathFirst(paths.price, item)),
    });
  }
  return reports;
}

/** A price as the provider wrote it (a number, or a number in a string, "-0.0075" as Twilio does), if any. */
export function priceOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? Math.abs(n) : undefined;
}

/** A provider's error code as the number Herald reports: a number as it is, else the connector's `errorCodes`. */
export function errorNumber(compiled: CompiledHttpConnector, code: unknown): number | undefined {
  if (typeof code === 'number' && Number.isInteger(code)) return code;
  if (typeof code !== 'string' || code === '') return undefined;
  if (/^-?\d{1,9}$/.test(code)) return Number(code);
  return compiled.settings.errorCodes?.[code];
}
