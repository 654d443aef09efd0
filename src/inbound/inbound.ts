import type { WhatsappInbound } from '../connectors/http/whatsappConnector.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { normaliseDestination } from '../messages/destination.js';
import { MESSAGE_COLUMNS, type MessageRow, messageToApi } from '../messages/messageObject.js';
import { laneSql } from '../callbacks/eventSql.js';
import { accountGet } from '../accounts/accounts.js';
import { senderNameWhatsappOwner, whatsappNumberOf } from '../senderNames/senderNameSql.js';
import { uuid7 } from '../util/uuid7.js';
import { inboundRuleList, matchRule } from './inboundRuleSql.js';
import { trafficCenterDefault } from './trafficCenterSql.js';

/** A subscriber's message opens a window for free-form WHATSAPP messages for this long (spec 2.2, 8). */
export const WHATSAPP_WINDOW_MS = 24 * 3600_000;

/**
 * Takes inbound WhatsApp messages: each belongs to the one account whose approved
 * WHATSAPP sender name is exactly the number or name it was written to (see senderNameWhatsappOwner), stored as an inbound message
 * (`direction: inbound`, status `inbound_sent`) in the center of the first matching rule (or the default center),
 * opens the 24-hour window for (account, sender name, subscriber), and, when the rule has a callback URL, raises
 * the inbound callback of spec 6.5 through the outbox. Nothing is dropped: a message no account claims is kept in
 * unrouted_inbounds; one for an account without inbound enabled is stored without a callback. A webhook sent
 * again stores nothing twice.
 */
export async function receiveInbound(ctx: AppContext, connectorId: string, inbounds: readonly WhatsappInbound[]): Promise<void> {
  for (const inbound of inbounds) {
    await ctx.db.transaction((tx) => receiveOne(ctx, tx, connectorId, inbound));
  }
}

async function receiveOne(ctx: AppContext, tx: Queryable, connectorId: string, inbound: WhatsappInbound): Promise<void> {
  const now = ctx.clock.now();
  const senderName = inbound.displayName ?? '';
  const subscriber = normaliseDestination(inbound.from)?.msisdn ?? inbound.from.replace(/\D/g, '');
  // Matched exactly, on the number written to (or the connector's phone number id); one owner at most.
  const numbers = [inbound.displayName, inbound.phoneNumberId].filter((n): n is string => !!n).map(whatsappNumberOf);
  const owner = await senderNameWhatsappOwner(tx, numbers);
  if (!owner) {
    await tx.query(
      `INSERT INTO unrouted_inbounds (connector_id, provider_message_id, sender_name, subscriber, text, received_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [connectorId, inbound.id, senderName || null, subscriber, inbound.text, now],
    );
    ctx.log.warn({ connector: connectorId, senderName }, 'inbound message for a sender name no account has; kept as unrouted');
    return;
  }
  const inboundEnabled = (await accountGet(tx, owner.account_id))?.inbound_enabled ?? false;
  const rule = inboundEnabled ? matchRule(await inboundRuleList(tx, owner.account_id), 'WHATSAPP', owner.name) : undefined;
  const centerId = rule?.traffic_center_id ?? (await trafficCenterDefault(tx, owner.account_id, now)).id;
  const [row] = await tx.query<MessageRow>(
    `INSERT INTO messages (account_id, id, created_at, channel_type, direction, sending_method, traffic_center_id, sender_name,
       destination, country, content, total_parts, status, status_at, history, provider_message_id)
     VALUES ($1, $2, $3, 'WHATSAPP', 'inbound', 'API', $4, $5, $6, $7, $8, 1, 'inbound_sent', $3, $9, $10)
     ON CONFLICT (account_id, provider_message_id) WHERE provider_message_id IS NOT NULL DO NOTHING
     RETURNING ${MESSAGE_COLUMNS}`,
    [
      owner.account_id,
      uuid7(now.getTime()),
      now,
      centerId,
      owner.name,
      subscriber,
      normaliseDestination(inbound.from)?.country ?? null,
      JSON.stringify({ contentType: 'text', text: inbound.text }),
      JSON.stringify([{ status: 'inbound_sent', at: now.toISOString() }]),
      `${connectorId}:${inbound.id}`,
    ],
  );
  if (!row) return; // The provider sent this webhook before.
  await tx.query(
    `INSERT INTO whatsapp_windows (account_id, sender_name, subscriber, opened_at, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, sender_name, subscriber) DO UPDATE SET opened_at = excluded.opened_at, expires_at = excluded.expires_at`,
    [owner.account_id, owner.name, subscriber, now, new Date(now.getTime() + WHATSAPP_WINDOW_MS)],
  );
  if (rule?.callback_url) {
    const targets = await ctx.callbackTargets.resolve(tx, owner.account_id, [rule.callback_url], now, { limited: false });
    await tx.query(
      `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at, extra)
       VALUES ($1, ${laneSql('$3::uuid')}, $2, $3, 'inbound_sent', 'WHATSAPP', 'inbound_sent', $4, $5)`,
      [targets.get(rule.callback_url), owner.account_id, row.id, now, JSON.stringify({ item: messageToApi(row) })],
    );
  }
}

/**
 * The senders and subscribers of a batch whose WhatsApp window is open now, as `sender\u0000subscriber` keys.
 */
export async function openWhatsappWindows(db: Queryable, accountId: number, pairs: readonly [string, string][], now: Date): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db.query<{ sender_name: string; subscriber: string }>(
    `SELECT w.sender_name, w.subscriber FROM whatsapp_windows w
     JOIN unnest($2::text[], $3::text[]) AS p(s, d) ON w.sender_name = p.s AND w.subscriber = p.d
     WHERE w.account_id = $1 AND w.expires_at > $4`,
    [accountId, pairs.map((p) => p[0]), pairs.map((p) => p[1]), now],
  );
  return new Set(rows.map((r) => `${r.sender_name}\u0000${r.subscriber}`));
}
