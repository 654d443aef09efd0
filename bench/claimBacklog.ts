import os from 'node:os';
import { openPostgres } from '../src/db/postgresDb.js';
import { migrate } from '../src/db/migrate.js';
import type { Queryable } from '../src/db/db.js';
import { claimLimits, messageClaimDue } from '../src/messages/claimSql.js';
import { messagePartitionsEnsure, QueueFloor } from '../src/messages/messagePartitions.js';
import { uuid7 } from '../src/util/uuid7.js';
import { TestClock } from '../test/helpers/clock.js';
import { type BenchFigure, createBenchSchema, median } from './lib.js';

class RolledBack extends Error {}

/**
 * `BENCH_ONLY=claim-backlog`: the submitter's claim of 500 over a backlog of `backlog` due SMS (a dispatch), with its
 * statistics, as Herald's connections run it (JIT off, docs/scaling.md "No JIT") and with JIT on, alternating, each
 * claim in a transaction rolled back so that the backlog stays. The target: JIT's claim costs more than Herald's (the
 * setting is worth keeping).
 */
export async function benchClaimBacklog(options: { backlog: number; rounds: number }): Promise<BenchFigure[]> {
  const schema = await createBenchSchema();
  const db = openPostgres({ url: schema.url, poolSize: 1 });
  try {
    await migrate(db);
    const now = new Date();
    await messagePartitionsEnsure(db, now);
    const ids = Array.from({ length: options.backlog }, (_, i) => uuid7(now.getTime() - 3_600_000 + i));
    await db.query(
      `INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, content, total_parts,
         status, status_at, due_at)
       SELECT 1, ($2::uuid[])[i], $1, 'SMS', 'Herald', '79161234560', '"bulk"', 1, 'sending', $1,
         $1::timestamptz - (i % 300) * interval '1 second'
       FROM generate_series(1, cardinality($2::uuid[])) i`,
      [now, ids],
    );
    await db.query('ANALYZE messages');
    const queue = await new QueueFloor(new TestClock(now)).ids(db);
    const [available] = await db.transaction(async (tx) => {
      await tx.query('SET LOCAL jit = on');
      return tx.query<{ yes: boolean }>('SELECT pg_jit_available() AS yes');
    });
    const claimMs = async (jit: boolean): Promise<number> => {
      let ms = NaN;
      await db
        .transaction(async (tx: Queryable) => {
          if (jit) await tx.query('SET LOCAL jit = on');
          const start = process.hrtime.bigint();
          const claimed = await messageClaimDue(tx, now, claimLimits(500), 60_000, queue);
          ms = Number(process.hrtime.bigint() - start) / 1e6;
          if (claimed.length !== 500) throw new Error(`claimed ${claimed.length}, not 500`);
          throw new RolledBack();
        })
        .catch((error: unknown) => {
          if (!(error instanceof RolledBack)) throw error;
        });
      return ms;
    };
    const herald: number[] = [];
    const jit: number[] = [];
    const load = os.loadavg()[0]!.toFixed(1);
    for (let i = 0; i < options.rounds; i++) {
      // Each first in every other round.
      for (const on of i % 2 === 0 ? [false, true] : [true, false]) (on ? jit : herald).push(await claimMs(on));
    }
    const ratio = median(jit) / median(herald);
    process.stdout.write(
      `  claim-backlog: ${options.backlog} due, ${options.rounds} claims of 500 each: Herald's connections (JIT off) ` +
        `${median(herald).toFixed(1)} ms, JIT on ${median(jit).toFixed(1)} ms ` +
        `(JIT ${available!.yes ? 'available' : 'not available on this server'}), ${ratio.toFixed(1)}x; 1-min load ` +
        `${load} at the start\n`,
    );
    return [
      {
        name: `claim of 500 over ${options.backlog} due messages, JIT on / Herald's (off)`,
        value: ratio,
        unit: 'x',
        ...(available!.yes ? { target: { op: '>=' as const, value: 1 } } : {}),
        note:
          `medians of ${options.rounds} alternating: ` +
          `${median(herald).toFixed(1)} ms off, ${median(jit).toFixed(1)} ms on`,
      },
    ];
  } finally {
    await db.close();
    await schema.drop();
  }
}
