import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import { messagesOfReceipts } from '../messages/index.js';
import type { CarrierReceipt } from '../shared/receipts.js';
import type { Clock } from '../util/clock.js';
import { stopListAdd } from './stopListSql.js';

type ReceiptSink = (receipts: readonly CarrierReceipt[]) => Promise<void>;

/**
 * The carrier's blocklist (DESIGN 20): `next` (the delivery writer) records receipts as ever; then a receipt whose
 * error code its connector lists in `blocklistErrorCodes` puts its message's number on the account's stop list
 * (source `carrier`), scoped to the message's channel and sender name. Receipts without such a code cost nothing
 * more; with none configured, `next` is returned as it is.
 */
export function carrierBlocklistSink(
  deps: { readonly db: Db; readonly clock: Clock; readonly log: Logger },
  codes: ReadonlyMap<string, ReadonlySet<number>>,
  next: ReceiptSink,
): ReceiptSink {
  if (codes.size === 0) return next;
  return async (receipts) => {
    await next(receipts);
    const blocked = receipts.flatMap((r) =>
      r.errorCode !== null && codes.get(r.connectorId)?.has(r.errorCode)
        ? [Object.assign({}, r, { errorCode: r.errorCode })]
        : [],
    );
    if (blocked.length === 0) return;
    try {
      await listBlocked(deps.db, blocked, deps.clock.now());
    } catch (error) {
      // The receipts are recorded: a listing that failed is logged, not a reason to have the carrier send them again.
      deps.log.error({ err: error }, 'putting numbers of the carrier blocklist on the stop list failed');
    }
  };
}

async function listBlocked(
  db: Db,
  receipts: readonly (CarrierReceipt & { readonly errorCode: number })[],
  now: Date,
): Promise<void> {
  const found = await messagesOfReceipts(db, receipts);
  const byAccount = new Map<number, typeof found>();
  for (const m of found) byAccount.set(m.accountId, [...(byAccount.get(m.accountId) ?? []), m]);
  for (const [accountId, messages] of byAccount)
    await stopListAdd(
      db,
      accountId,
      messages.map((m) => ({
        number: m.destination,
        channelType: m.channelType,
        senderName: m.senderName,
        source: 'carrier' as const,
        comment: `carrier error ${m.errorCode}`,
      })),
      now,
    );
}
