import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierReceipt } from '../../connector.js';
import type { CompiledHttpConnector } from './httpConnectorConfig.js';
import { compileJsonPath, jsonPathAll, jsonPathFirst } from './jsonPath.js';

const ROOT = compileJsonPath('$');

/** Whether a status webhook's raw body carries the provider's signature as its connector describes it. */
export function statusReportSigned(
  compiled: CompiledHttpConnector,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
): boolean {
  const signature = compiled.settings.status.webhook?.signature;
  if (!signature) return false;
  if (signature.kind === 'none') return true;
  const given = headers[signature.header.toLowerCase()];
  if (typeof given !== 'string') return false;
  const prefix = signature.prefix ?? '';
  if (!given.startsWith(prefix)) return false;
  const secret = compiled.settings.secrets![signature.secret]!;
  const digest = createHmac('sha256', secret).update(raw).digest();
  const encoding = signature.encoding ?? 'hex';
  const received = Buffer.from(given.slice(prefix.length), encoding);
  return received.length === digest.length && timingSafeEqual(received, digest);
}

/**
 * A status webhook's reports as receipts: each item (at `items`, or the whole body) with an id and a status the
 * map knows; `sent` is no news and is left out, as are statuses the map does not name.
 */
export function statusReceipts(compiled: CompiledHttpConnector, payload: unknown, at: Date): CarrierReceipt[] {
  const webhook = compiled.webhook;
  if (!webhook) return [];
  const items = jsonPathAll(webhook.items ?? ROOT, payload);
  const { id, status, errorCode } = webhook;
  const receipts: CarrierReceipt[] = [];
  for (const item of items) {
    const carrierId = jsonPathFirst(id, item);
    const theirs = jsonPathFirst(status, item);
    if ((typeof carrierId !== 'string' && typeof carrierId !== 'number') || theirs === undefined) continue;
    const state = compiled.statusMap.get(String(theirs));
    if (!state || state === 'sent') continue;
    const code = errorCode && jsonPathFirst(errorCode, item);
    receipts.push({
      connectorId: compiled.settings.id,
      carrierId: String(carrierId),
      state,
      at,
      errorCode: typeof code === 'number' ? code : typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : null,
    });
  }
  return receipts;
}
