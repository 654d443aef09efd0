import { accountIds } from '../accounts/index.js';
import {
  callbackPostsDeleteFinished,
  callbackTargetsRecheck,
  recheckCallbackTargetsBefore,
} from '../callbacks/index.js';
import { conversionsDeleteOfMessageRange, conversionsDeleteOfMessages } from '../conversions/index.js';
import { isLockTimeout } from '../db/connectionErrors.js';
import type { Db } from '../db/db.js';
import { shortLinksDeleteOfMessageRange, shortLinksDeleteOfMessages } from '../links/index.js';
import { messageRetention } from '../messages/index.js';
import { uuidBound } from '../util/uuid7.js';
import { statsDirtyBetween, statsRolledUntil } from '../statistics/index.js';
import { DAY_MS, dayOf } from '../util/time.js';

const BATCH = 5000;
/** At most this many rows of each kind per sweep, so that a first sweep over years of data stays a short job. */
const MAX_PER_SWEEP = 200_000;

export interface RetentionResult {
  /** Week partitions of messages dropped whole. */
  readonly partitions: number;
  /** Messages deleted one by one (the rest: DEFAULT, the table of before partitioning, days still busy). */
  readonly messages: number;
  readonly submissions: number;
  readonly callbackPosts: number;
}

/** What a batch of deletes removed: how many rows, and the callback targets (URLs) they referred to. */
interface DeletedBatch {
  readonly deleted: number;
  readonly callbackTargetIds: readonly number[];
}

/** The moment before which the retention keeps nothing finished. */
export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * Retention (HERALD_RETENTION_DAYS): deletes what is older than `before` (see {@link retentionCutoff}) and
 * finished, each table through its owner's delete. Messages with nothing left to happen go with their short links
 * and conversions, but only from days the statistics have already rolled up, so that the statistics keep counting
 * them (and the rollup of a day older than the retention is never redone); carrier submissions go by age; finished
 * callback POSTs go with their attempts and events, so a failed POST older than the retention can no
 * longer be replayed. The callback URLs they referred to, and those last used a day before the messages deleted,
 * are looked at by the expiry of idle URLs again (they may now go). Batched, bounded per sweep, safe in several
 * workers.
 *
 * Messages go by whole partitions first (docs/scaling.md, Partitions): a week partition older than that bound with
 * nothing left to happen in it (and not a day the statistics count live) is dropped, after its messages' short
 * links and conversions. A partition with a message still waiting (scheduled far ahead, a lifetime running) stays;
 * its finished messages go one by one as those of DEFAULT do, and the partition goes on a later run, once its last
 * message has finished.
 */
export async function retentionSweep(db: Db, before: Date): Promise<RetentionResult> {
  const cutoff = before.getTime();
  const rolledUntil = await statsRolledUntil(db);
  const messagesBefore =
    rolledUntil === null ? undefined : Math.min(cutoff, Date.parse(`${rolledUntil}T00:00:00Z`) + DAY_MS);
  const accounts = await accountIds(db);
  const targets = new Set<number>();
  let partitions = 0;
  // Row deletes stop at a partition left for a later drop, and at the week the cutoff falls in: deleting their rows
  // one by one would defeat the drop. The table of before partitioning (from MINVALUE) goes by rows meanwhile.
  let rowsBefore = messagesBefore ?? -Infinity;
  if (messagesBefore !== undefined) {
    const current = await messageRetention.partitionCovering(db, messagesBefore);
    if (current) rowsBefore = current.fromMs!;
    for (const p of await messageRetention.droppablePartitions(db, messagesBefore)) {
      const later = (): void => void (rowsBefore = Math.min(rowsBefore, p.fromMs ?? -Infinity));
      // A day changed since its rollup is counted live from its messages until the rollup redoes it (a minute).
      if (await statsDirtyBetween(db, p.fromMs === null ? null : dayOf(p.fromMs), dayOf(p.toMs!))) {
        later();
        continue;
      }
      try {
        for (const id of await dropPartition(db, accounts, p)) targets.add(id);
        partitions++;
      } catch (error) {
        // Statements on messages held their locks longer than the drop may wait: the next run tries again.
        if (!isLockTimeout(error)) throw error;
        later();
      }
    }
  }
  let messages = 0;
  let callbackPosts = 0;
  for (const accountId of accounts) {
    if (rowsBefore > -Infinity) {
      messages += await drain(
        (limit) => deleteMessages(db, accountId, uuidBound(rowsBefore, 'low'), limit),
        MAX_PER_SWEEP - messages,
        targets,
      );
    }
    callbackPosts += await drain(
      (limit) => callbackPostsDeleteFinished(db, accountId, new Date(cutoff), limit),
      MAX_PER_SWEEP - callbackPosts,
      targets,
    );
  }
  const submissions = await drain(
    async (limit) => ({
      deleted: await messageRetention.deleteSubmissionsBefore(db, new Date(cutoff), limit),
      callbackTargetIds: [],
    }),
    MAX_PER_SWEEP,
    targets,
  );
  await callbackTargetsRecheck(db, [...targets]);
  if (messagesBefore !== undefined) await recheckCallbackTargetsBefore(db, new Date(messagesBefore));
  return { partitions, messages, submissions, callbackPosts };
}

/**
 * Deletes a batch of an account's finished messages with their short links and conversions, in one transaction
 * (each table's delete is its owner's); returns how many messages went and their callback URLs.
 */
async function deleteMessages(db: Db, accountId: number, beforeId: string, limit: number): Promise<DeletedBatch> {
  return db.transaction(async (tx) => {
    const deleted = await messageRetention.deleteFinished(tx, accountId, beforeId, limit);
    const ids = deleted.map((m) => m.id);
    await shortLinksDeleteOfMessages(tx, accountId, ids);
    await conversionsDeleteOfMessages(tx, accountId, ids);
    const targets = new Set(deleted.flatMap((m) => (m.callbackTargetId === null ? [] : [m.callbackTargetId])));
    return { deleted: ids.length, callbackTargetIds: [...targets] };
  });
}

/**
 * Drops a partition of messages with their short links and conversions, in one transaction (each table's delete is
 * its owner's); returns the callback URLs its messages referred to.
 */
async function dropPartition(
  db: Db,
  accounts: readonly number[],
  p: messageRetention.MessagePartition,
): Promise<number[]> {
  return db.transaction(async (tx) => {
    return messageRetention.dropPartition(tx, p, async (ids) => {
      for (const accountId of accounts) {
        await shortLinksDeleteOfMessageRange(tx, accountId, ids);
        await conversionsDeleteOfMessageRange(tx, accountId, ids);
      }
    });
  });
}

/**
 * Runs a batched delete until a batch comes back short or `budget` rows are gone; returns how many went, and adds
 * the callback URLs they referred to to `targets`.
 */
async function drain(
  deleteBatch: (limit: number) => Promise<DeletedBatch>,
  budget: number,
  targets: Set<number>,
): Promise<number> {
  let total = 0;
  while (total < budget) {
    const limit = Math.min(BATCH, budget - total);
    const batch = await deleteBatch(limit);
    total += batch.deleted;
    for (const id of batch.callbackTargetIds) targets.add(id);
    if (batch.deleted < limit) break;
  }
  return total;
}
