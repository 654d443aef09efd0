import type { Db, Queryable } from '../db/db.js';
import { messageCascadeChannelCounts } from '../messages/index.js';
import type { Channel } from '../shared/channels.js';
import { type ChannelFigures, verificationStatsAdd, verificationStatsBetween } from './verificationStatsSql.js';
import { type VerificationFigures, verificationsSentBetween, verificationsTakeExpired } from './verificationSql.js';
import { verifierList } from './verifierSql.js';

const HOUR_MS = 3_600_000;

/** Sends, confirmations and their ratio (null when nothing was sent). */
export interface Conversion {
  sends: number;
  confirmations: number;
  conversionRate: number | null;
}
export interface ChannelConversion extends Conversion {
  channelType: Channel;
}
export interface VerifierConversion extends Conversion {
  gatewayId: string;
  /** Null for a verifier deleted since. */
  name: string | null;
  channels: ChannelConversion[];
}
export interface VerificationStatistics {
  verifiers: VerifierConversion[];
  channels: ChannelConversion[];
  total: Conversion;
}

/**
 * The figures of codes per label (what `labelOf` makes of a code) and channel: each code counted on its first
 * step's channel, the steps that left Herald on theirs, each confirmation on the channel of the step it came after.
 */
async function tally(
  db: Queryable,
  accountId: number,
  codes: readonly VerificationFigures[],
  labelOf: (code: VerificationFigures) => string,
): Promise<Map<string, Map<Channel, ChannelFigures>>> {
  const labels = new Map<string, Map<Channel, ChannelFigures>>();
  const at = (label: string, gatewayId: string, channel: Channel): ChannelFigures => {
    const channels = labels.get(label) ?? new Map<Channel, ChannelFigures>();
    labels.set(label, channels);
    let figures = channels.get(channel);
    if (!figures) {
      figures = { gateway_id: gatewayId, channel_type: channel, codes: 0, steps: 0, confirmations: 0 };
      channels.set(channel, figures);
    }
    return figures;
  };
  const gatewayOf = new Map<string, string>();
  for (const code of codes) {
    const label = labelOf(code);
    gatewayOf.set(label, code.gateway_id);
    if (code.state === 'confirmed' && code.confirmed_channel)
      at(label, code.gateway_id, code.confirmed_channel).confirmations++;
  }
  const counts = await messageCascadeChannelCounts(
    db,
    accountId,
    codes.map((c) => ({ id: c.id, label: labelOf(c) })),
  );
  for (const count of counts) {
    const figures = at(count.label, gatewayOf.get(count.label)!, count.channel_type);
    figures.codes += count.firsts;
    figures.steps += count.steps;
  }
  return labels;
}

/**
 * Deletes codes that expired before `before` (up to `limit`) and adds their figures to verification_stats by the
 * hour they were sent in, in one transaction: a code is counted either live or rolled up, never both. Returns how
 * many were deleted.
 */
export async function rollUpExpired(db: Db, before: Date, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const codes = await verificationsTakeExpired(tx, before, limit);
    const byAccount = new Map<number, VerificationFigures[]>();
    for (const code of codes) byAccount.set(code.account_id, [...(byAccount.get(code.account_id) ?? []), code]);
    const hourOf = (code: VerificationFigures) =>
      new Date(Math.floor(code.created_at.getTime() / HOUR_MS) * HOUR_MS).toISOString();
    for (const [accountId, ofAccount] of byAccount) {
      const labels = await tally(tx, accountId, ofAccount, (c) => `${c.gateway_id} ${hourOf(c)}`);
      const rows = [...labels].flatMap(([label, channels]) =>
        [...channels.values()].map((figures) => ({
          ...figures,
          account_id: accountId,
          hour: new Date(label.split(' ')[1]!),
        })),
      );
      await verificationStatsAdd(tx, rows);
    }
    return codes.length;
  });
}

/**
 * GET /api/v1/verifiers/statistics: the account's codes sent in [from, to), of one verifier or all: codes still kept
 * (a day past their expiry) counted live, older ones from their rollup by the hour they were sent in. Every verifier
 * of the account is listed, oldest first (with zeros when it sent nothing), then each deleted one that has figures
 * in the range.
 */
export async function verificationStatistics(
  db: Db,
  accountId: number,
  range: { from: Date; to: Date; gatewayId: string | null },
): Promise<VerificationStatistics> {
  const verifiers = (await verifierList(db, accountId)).filter(
    (v) => range.gatewayId === null || v.gateway_id === range.gatewayId,
  );
  const live = await tally(db, accountId, await verificationsSentBetween(db, accountId, range), (c) => c.gateway_id);
  const figures = [
    ...[...live.values()].flatMap((channels) => [...channels.values()]),
    ...(await verificationStatsBetween(db, accountId, range)),
  ];

  const byVerifier = new Map<string, VerifierConversion>();
  for (const v of verifiers) byVerifier.set(v.gateway_id, verifierEntry(v.gateway_id, v.name));
  const channels = new Map<Channel, ChannelConversion>();
  const total = conversion();
  for (const f of figures) {
    let verifier = byVerifier.get(f.gateway_id);
    if (!verifier) {
      verifier = verifierEntry(f.gateway_id, null);
      byVerifier.set(f.gateway_id, verifier);
    }
    let channel = verifier.channels.find((c) => c.channelType === f.channel_type);
    if (!channel) {
      channel = { channelType: f.channel_type, ...conversion() };
      verifier.channels.push(channel);
    }
    if (!channels.has(f.channel_type)) channels.set(f.channel_type, { channelType: f.channel_type, ...conversion() });
    for (const c of [channel, channels.get(f.channel_type)!]) add(c, f.steps, f.confirmations);
    for (const c of [verifier, total]) add(c, f.codes, f.confirmations);
  }
  const byChannel = (a: ChannelConversion, b: ChannelConversion) => (a.channelType < b.channelType ? -1 : 1);
  for (const v of byVerifier.values()) v.channels.sort(byChannel);
  // The account's verifiers oldest first (as listed), then deleted ones by gatewayId.
  const deleted = [...byVerifier.values()].filter((v) => v.name === null);
  deleted.sort((a, b) => (a.gatewayId < b.gatewayId ? -1 : 1));
  const kept = [...byVerifier.values()].filter((v) => v.name !== null);
  return { verifiers: [...kept, ...deleted], channels: [...channels.values()].sort(byChannel), total };
}

const conversion = (): Conversion => ({ sends: 0, confirmations: 0, conversionRate: null });
const verifierEntry = (gatewayId: string, name: string | null): VerifierConversion => ({
  gatewayId,
  name,
  ...conversion(),
  channels: [],
});

/** Adds sends and confirmations; the rate to 4 decimals. */
function add(c: Conversion, sends: number, confirmations: number): void {
  c.sends += sends;
  c.confirmations += confirmations;
  c.conversionRate = c.sends === 0 ? null : Math.round((c.confirmations / c.sends) * 10_000) / 10_000;
}
