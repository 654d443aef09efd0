import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';

/** The statements on verification_stats (this capability owns the table): figures of deleted codes, by the hour. */

export interface ChannelFigures {
  gateway_id: string;
  channel_type: Channel;
  /** Codes sent whose first step went on this channel. */
  codes: number;
  /** Steps on this channel that left Herald. */
  steps: number;
  /** Codes confirmed after a step on this channel. */
  confirmations: number;
}

/** Adds the figures of deleted codes to their hours' rows. */
export async function verificationStatsAdd(
  tx: Queryable,
  rows: readonly (ChannelFigures & { account_id: number; hour: Date })[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO verification_stats (account_id, gateway_id, hour, channel_type, codes, steps, confirmations)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::int[], $6::int[], $7::int[])
     ON CONFLICT (account_id, hour, gateway_id, channel_type) DO UPDATE SET
       codes = verification_stats.codes + excluded.codes,
       steps = verification_stats.steps + excluded.steps,
       confirmations = verification_stats.confirmations + excluded.confirmations`,
    [
      rows.map((r) => r.account_id),
      rows.map((r) => r.gateway_id),
      rows.map((r) => r.hour),
      rows.map((r) => r.channel_type),
      rows.map((r) => r.codes),
      rows.map((r) => r.steps),
      rows.map((r) => r.confirmations),
    ],
  );
}

/** The figures of the account's deleted codes sent in the hours that begin in [from, to), per verifier and channel. */
export async function verificationStatsBetween(
  db: Queryable,
  accountId: number,
  range: { from: Date; to: Date; gatewayId: string | null },
): Promise<ChannelFigures[]> {
  return db.query<ChannelFigures>(
    `SELECT gateway_id, channel_type, sum(codes)::int AS codes, sum(steps)::int AS steps,
       sum(confirmations)::int AS confirmations
     FROM verification_stats
     WHERE account_id = $1 AND hour >= $2 AND hour < $3 AND ($4::text IS NULL OR gateway_id = $4)
     GROUP BY gateway_id, channel_type`,
    [accountId, range.from, range.to, range.gatewayId],
  );
}
