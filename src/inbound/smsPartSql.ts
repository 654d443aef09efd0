import type { Queryable } from '../db/db.js';

/** One long inbound SMS as its parts name it: where it came, from whom, to which number, its reference and count. */
export interface SmsPartKey {
  readonly connectorId: string;
  readonly sender: string;
  readonly recipient: string;
  readonly reference: number;
  readonly total: number;
}

export interface SmsPartRow {
  readonly part_number: number;
  readonly text: string;
  readonly received_at: Date;
  readonly completed_at: Date | null;
}

/**
 * The first key of `pg_advisory_xact_lock(int, int)` for one long message's parts (the second is a hash of its key):
 * two parts arriving at once, on two binds, would each count only its own and neither see the message complete.
 */
const SMS_PARTS_LOCK_CLASS = 7311_0003;

const KEY_WHERE = 'connector_id = $1 AND sender = $2 AND recipient = $3 AND reference = $4 AND total = $5';
const keyParams = (k: SmsPartKey): unknown[] => [k.connectorId, k.sender, k.recipient, k.reference, k.total];

/**
 * Serialises, until the transaction ends, the transactions that take a part of this message. A hash collision only
 * makes two messages' parts wait for each other.
 */
export async function smsPartsLock(tx: Queryable, key: SmsPartKey): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
    SMS_PARTS_LOCK_CLASS,
    JSON.stringify(keyParams(key)),
  ]);
}

/** The part of this number held for the message (waiting, or of a completed one), if any. */
export async function smsPartGet(tx: Queryable, key: SmsPartKey, partNumber: number): Promise<SmsPartRow | undefined> {
  const [row] = await tx.query<SmsPartRow>(
    `SELECT part_number, text, received_at, completed_at FROM inbound_sms_parts
     WHERE ${KEY_WHERE} AND part_number = $6`,
    [...keyParams(key), partNumber],
  );
  return row;
}

export async function smsPartInsert(
  tx: Queryable,
  key: SmsPartKey,
  part: { partNumber: number; text: string; at: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO inbound_sms_parts (connector_id, sender, recipient, reference, total, part_number, text, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [...keyParams(key), part.partNumber, part.text, part.at],
  );
}

/** The parts of the message not yet handed on, by part number. */
export async function smsPartsWaiting(tx: Queryable, key: SmsPartKey): Promise<SmsPartRow[]> {
  return tx.query<SmsPartRow>(
    `SELECT part_number, text, received_at, completed_at FROM inbound_sms_parts
     WHERE ${KEY_WHERE} AND completed_at IS NULL ORDER BY part_number`,
    keyParams(key),
  );
}

/** Marks the waiting parts of the message handed on; they stay to recognise a part sent again. */
export async function smsPartsComplete(tx: Queryable, key: SmsPartKey, at: Date): Promise<void> {
  await tx.query(`UPDATE inbound_sms_parts SET completed_at = $6 WHERE ${KEY_WHERE} AND completed_at IS NULL`, [
    ...keyParams(key),
    at,
  ]);
}

/** Forgets the completed parts of the message (a newer message reuses its reference). */
export async function smsPartsDeleteCompleted(tx: Queryable, key: SmsPartKey): Promise<void> {
  await tx.query(`DELETE FROM inbound_sms_parts WHERE ${KEY_WHERE} AND completed_at IS NOT NULL`, keyParams(key));
}

/** Deletes up to `limit` parts of messages completed before `before`; returns how many went. */
export async function smsPartsPurgeCompleted(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM inbound_sms_parts WHERE ctid IN (
       SELECT ctid FROM inbound_sms_parts WHERE completed_at < $1 LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/** Up to `limit` messages whose first waiting part arrived before `before`, oldest first. */
export async function smsPartsOverdue(db: Queryable, before: Date, limit: number): Promise<SmsPartKey[]> {
  const rows = await db.query<{
    connector_id: string;
    sender: string;
    recipient: string;
    reference: number;
    total: number;
  }>(
    `SELECT connector_id, sender, recipient, reference, total FROM inbound_sms_parts
     WHERE completed_at IS NULL AND received_at < $1
     GROUP BY connector_id, sender, recipient, reference, total
     ORDER BY min(received_at) LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => ({
    connectorId: r.connector_id,
    sender: r.sender,
    recipient: r.recipient,
    reference: Number(r.reference),
    total: Number(r.total),
  }));
}
