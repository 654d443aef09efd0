import type { Queryable } from '../db/db.js';

export interface UnroutedInboundRow {
  readonly id: number;
  readonly connector_id: string;
  readonly sender_name: string | null;
  readonly subscriber: string;
  readonly text: string;
  readonly received_at: Date;
}

/**
 * Keeps an inbound message no account claims, for the operator; the same provider message again (a webhook sent
 * twice) is kept once.
 */
export async function unroutedInboundInsert(
  db: Queryable,
  inbound: {
    connectorId: string;
    providerMessageId: string;
    senderName: string | null;
    subscriber: string;
    text: string;
    at: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO unrouted_inbounds (connector_id, provider_message_id, sender_name, subscriber, text, received_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [inbound.connectorId, inbound.providerMessageId, inbound.senderName, inbound.subscriber, inbound.text, inbound.at],
  );
}

/** A page of the unrouted inbound messages, newest first, and how many there are in all. */
export async function unroutedInboundList(
  db: Queryable,
  limit: number,
  offset: number,
): Promise<{ rows: UnroutedInboundRow[]; total: number }> {
  const rows = await db.query<UnroutedInboundRow>(
    `SELECT id, connector_id, sender_name, subscriber, text, received_at FROM unrouted_inbounds
     ORDER BY id DESC LIMIT $1 OFFSET $2`,
    [limit, offset],
  );
  const [count] = await db.query<{ n: number }>('SELECT count(*) AS n FROM unrouted_inbounds');
  return { rows, total: Number(count!.n) };
}
