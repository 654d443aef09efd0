import type { Queryable } from '../db/db.js';

export interface InboundRuleRow {
  id: number;
  account_id: number;
  traffic_center_id: number;
  callback_url: string | null;
  sender_names: string[] | null;
  channel_type: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, account_id, traffic_center_id, callback_url, sender_names, channel_type, created_at, updated_at';

export interface RuleFields {
  trafficCenterId: number;
  callbackUrl: string | null;
  senderNames: string[] | null;
  channelType: string;
}

export async function inboundRuleInsert(
  db: Queryable,
  accountId: number,
  f: RuleFields,
  now: Date,
): Promise<InboundRuleRow> {
  const [row] = await db.query<InboundRuleRow>(
    `INSERT INTO inbound_rules (account_id, traffic_center_id, callback_url, sender_names, channel_type, created_at,
       updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${COLUMNS}`,
    [accountId, f.trafficCenterId, f.callbackUrl, f.senderNames, f.channelType, now],
  );
  return row!;
}

export async function inboundRuleCount(db: Queryable, accountId: number): Promise<number> {
  const [row] = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM inbound_rules WHERE account_id = $1',
    [accountId],
  );
  return row!.count;
}

/** Whether a rule of the account sends inbounds to the center. */
export async function inboundRuleUsesCenter(db: Queryable, accountId: number, centerId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM inbound_rules WHERE account_id = $1 AND traffic_center_id = $2 LIMIT 1', [
    accountId,
    centerId,
  ]);
  return rows.length > 0;
}

export async function inboundRuleList(db: Queryable, accountId: number): Promise<InboundRuleRow[]> {
  return db.query<InboundRuleRow>(`SELECT ${COLUMNS} FROM inbound_rules WHERE account_id = $1 ORDER BY id`, [
    accountId,
  ]);
}

export async function inboundRuleGet(
  db: Queryable,
  accountId: number,
  id: number,
): Promise<InboundRuleRow | undefined> {
  const [row] = await db.query<InboundRuleRow>(
    `SELECT ${COLUMNS} FROM inbound_rules WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return row;
}

export async function inboundRuleUpdate(
  db: Queryable,
  accountId: number,
  id: number,
  f: RuleFields,
  now: Date,
): Promise<InboundRuleRow | undefined> {
  const [row] = await db.query<InboundRuleRow>(
    `UPDATE inbound_rules SET traffic_center_id = $3, callback_url = $4, sender_names = $5, channel_type = $6,
       updated_at = $7
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, f.trafficCenterId, f.callbackUrl, f.senderNames, f.channelType, now],
  );
  return row;
}

export async function inboundRuleDelete(db: Queryable, accountId: number, id: number): Promise<boolean> {
  return (
    (await db.query('DELETE FROM inbound_rules WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id]))
      .length > 0
  );
}

/**
 * The rule an inbound message follows (spec 6.5): a rule that names its sender name wins over a rule for all
 * sender names; among equals, the oldest. Undefined: it goes to the default center. A TELEGRAM sender name (a bot's
 * username) matches in any case, as Telegram compares usernames.
 */
export function matchRule(
  rules: readonly InboundRuleRow[],
  channel: string,
  senderName: string,
): InboundRuleRow | undefined {
  const ofChannel = rules.filter((r) => r.channel_type === channel);
  const same =
    channel === 'TELEGRAM'
      ? (name: string) => name.toLowerCase() === senderName.toLowerCase()
      : (name: string) => name === senderName;
  return (
    ofChannel.find((r) => r.sender_names !== null && r.sender_names.length > 0 && r.sender_names.some(same)) ??
    ofChannel.find((r) => r.sender_names === null || r.sender_names.length === 0)
  );
}
