import type pg from 'pg';

/**
 * The cascade benchmark's reading of the database after a run (bench/cascade.ts): whether every cascade ended as
 * the simulators decide, when they ended, how soon each later step followed the outcome that called for it, and how
 * each channel's steps queued. Run once the cascades have ended, outside the measured time.
 */

/**
 * Last digits of the destinations, one third each (src/simulators/outcomes.ts): the steps each cascade should take
 * and how they should end. `queued` is the same cascade when its VK step's 60 s lifetime ended before it was sent
 * (unsent, which `not_read` moves on from as from undelivered, DESIGN 13): what VIBER and SMS then do by the digit.
 */
export const KINDS = [
  { digit: '0', steps: 1, outcome: 'VK:delivered/read', queued: 'VK:unsent VIBER:delivered/read' },
  { digit: '6', steps: 2, outcome: 'VK:delivered/unread VIBER:delivered', queued: 'VK:unsent VIBER:delivered' },
  {
    digit: '7',
    steps: 3,
    outcome: 'VK:undelivered VIBER:undelivered SMS:undelivered',
    queued: 'VK:unsent VIBER:undelivered SMS:undelivered',
  },
] as const;

/** Every cascade of the account ended as its destination's last digit says; returns what did not, counted. */
export async function checkOutcomes(db: pg.Pool, accountId: number, total: number): Promise<string[]> {
  const rows = await db.query(
    `SELECT digit, state, current_step, steps, count(*)::int AS n FROM (
       SELECT right(r.destination, 1) AS digit, c.state, c.current_step,
         string_agg(m.channel_type || ':' || m.status || coalesce('/' || m.read_status, ''), ' '
           ORDER BY m.cascade_step) AS steps
       FROM cascades c
       JOIN messages r ON r.account_id = c.account_id AND r.id = c.id
       JOIN messages m ON m.account_id = c.account_id AND m.cascade_id = c.id
       WHERE c.account_id = $1
       GROUP BY c.id, r.destination, c.state, c.current_step
     ) t GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    [accountId],
  );
  const problems: string[] = [];
  let found = 0;
  for (const r of rows.rows) {
    found += r.n;
    const kind = KINDS.find((k) => k.digit === r.digit);
    const ended = kind && r.state === 'done' && r.current_step === r.steps.split(' ').length;
    if (ended && (r.steps === kind.outcome || r.steps === kind.queued)) continue;
    problems.push(`${r.n} x last digit ${r.digit}: ${r.state} at step ${r.current_step}: ${r.steps}`);
  }
  if (found !== total) problems.push(`${found} cascades of ${total} found`);
  return problems;
}

export interface CascadeTiming {
  /** First request -> the last cascade's end. */
  readonly elapsedS: number;
  /** First request -> the latest of each cascade's end less the lifetimes it waited through unread. */
  readonly afterWaitsS: number;
  /** First request -> the last end of a cascade that waited through no lifetime. */
  readonly unwaitedS: number;
  /** Messages of all the cascades. */
  readonly steps: number;
  /** Cascades whose VK step was never read in its lifetime. */
  readonly unread: number;
}

export async function cascadeTiming(db: pg.Pool, accountId: number, startedAt: Date): Promise<CascadeTiming> {
  const rows = await db.query(
    `WITH waits AS (
       SELECT c.id, c.ended_at, count(m.id)::int AS steps,
         coalesce(sum(m.ttl) FILTER (WHERE m.read_status = 'unread'), 0) AS waited_s
       FROM cascades c JOIN messages m ON m.account_id = c.account_id AND m.cascade_id = c.id
       WHERE c.account_id = $1 GROUP BY c.id, c.ended_at
     )
     SELECT extract(epoch FROM max(ended_at) - $2::timestamptz) AS elapsed_s,
       extract(epoch FROM max(ended_at - make_interval(secs => waited_s)) - $2::timestamptz) AS after_waits_s,
       extract(epoch FROM max(ended_at) FILTER (WHERE waited_s = 0) - $2::timestamptz) AS unwaited_s,
       sum(steps)::int AS steps, count(*) FILTER (WHERE waited_s > 0)::int AS unread
     FROM waits`,
    [accountId, startedAt],
  );
  const r = rows.rows[0];
  return {
    elapsedS: Number(r.elapsed_s),
    afterWaitsS: Number(r.after_waits_s),
    unwaitedS: Number(r.unwaited_s),
    steps: r.steps,
    unread: r.unread,
  };
}

export interface StepLag {
  readonly step: number;
  /** What the previous step ended with: undelivered, unsent or unread. */
  readonly trigger: string;
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Seconds after the first request when the first and the last of these steps were created. */
  readonly firstS: number;
  readonly lastS: number;
}

/**
 * How long after the outcome that calls for it each later step was created (it is created in the transaction that
 * records the outcome): after `undelivered` or `unsent`, from the previous step's status time (a report's arrival
 * at Herald); after `unread`, from the end of the previous step's lifetime, when a read stopped being possible (the
 * lifetime job runs every second, so up to a second of this is its tick).
 */
export async function stepLags(db: pg.Pool, accountId: number, startedAt: Date): Promise<StepLag[]> {
  const rows = await db.query(
    `WITH pairs AS (
       SELECT n.cascade_step AS step, CASE WHEN p.read_status = 'unread' THEN 'unread' ELSE p.status END AS trigger,
         extract(epoch FROM n.created_at - CASE WHEN p.read_status = 'unread' THEN p.expires_at ELSE p.status_at END)
           * 1000 AS ms,
         n.created_at
       FROM messages n JOIN messages p ON p.account_id = n.account_id AND p.cascade_id = n.cascade_id
         AND p.cascade_step = n.cascade_step - 1
       WHERE n.account_id = $1 AND n.cascade_step > 1
     )
     SELECT step, trigger, count(*)::int AS n,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
       max(ms) AS max, extract(epoch FROM min(created_at) - $2::timestamptz) AS first_s,
       extract(epoch FROM max(created_at) - $2::timestamptz) AS last_s
     FROM pairs GROUP BY step, trigger ORDER BY step, trigger`,
    [accountId, startedAt],
  );
  return rows.rows.map((r) => ({
    step: r.step,
    trigger: r.trigger,
    n: r.n,
    p50: Number(r.p50),
    p99: Number(r.p99),
    max: Number(r.max),
    firstS: Number(r.first_s),
    lastS: Number(r.last_s),
  }));
}

export interface ChannelQueue {
  readonly channel: string;
  readonly created: number;
  /** Handed to the carrier (a sent time). */
  readonly sent: number;
  readonly unsent: number;
  /** Created -> handed to the carrier, ms. */
  readonly p50: number;
  readonly p99: number;
  /** Seconds after the first request of the first and the last hand-over. */
  readonly firstSentS: number;
  readonly lastSentS: number;
}

/** Per channel of the cascades' steps: how long they queued before going to the carrier, and how many never did. */
export async function channelQueues(db: pg.Pool, accountId: number, startedAt: Date): Promise<ChannelQueue[]> {
  const rows = await db.query(
    `SELECT channel_type, count(*)::int AS created, count(sent_at)::int AS sent,
       count(*) FILTER (WHERE status = 'unsent')::int AS unsent,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at) * 1000) AS p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at) * 1000) AS p99,
       extract(epoch FROM min(sent_at) - $2::timestamptz) AS first_s,
       extract(epoch FROM max(sent_at) - $2::timestamptz) AS last_s
     FROM messages WHERE account_id = $1 AND cascade_id IS NOT NULL
     GROUP BY channel_type ORDER BY min(cascade_step)`,
    [accountId, startedAt],
  );
  return rows.rows.map((r) => ({
    channel: r.channel_type,
    created: r.created,
    sent: r.sent,
    unsent: r.unsent,
    p50: Number(r.p50),
    p99: Number(r.p99),
    firstSentS: Number(r.first_s),
    lastSentS: Number(r.last_s),
  }));
}

/** Messages of the schema by step, status and read status: `1:delivered/read=3000 2:sending=12 ...`. */
export async function stepCounts(db: pg.Pool): Promise<string> {
  const rows = await db.query(
    `SELECT cascade_step, status, read_status, count(*)::int AS n FROM messages
     GROUP BY cascade_step, status, read_status ORDER BY 1, 2, 3`,
  );
  return rows.rows
    .map((r) => `${r.cascade_step}:${r.status}${r.read_status ? `/${r.read_status}` : ''}=${r.n}`)
    .join(' ');
}

/** What the cascades still running wait for: their current step's channel, status and whether a lifetime runs. */
export async function runningCascades(db: pg.Pool): Promise<string[]> {
  const rows = await db.query(
    `SELECT c.current_step, m.channel_type, m.status, m.read_status, m.due_at IS NOT NULL AS lifetime_running,
       count(*)::int AS n, min(m.status_at) AS oldest_status_at
     FROM cascades c LEFT JOIN messages m ON m.account_id = c.account_id AND m.cascade_id = c.id
       AND m.cascade_step = c.current_step
     WHERE c.state = 'running'
     GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
  );
  return rows.rows.map((r) => JSON.stringify(r));
}
