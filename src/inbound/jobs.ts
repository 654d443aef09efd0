import type { AppContext } from '../context.js';
import type { Job } from '../shared/jobs.js';
import { smsPartsSweepOverdue } from './smsInbound.js';
import { smsPartsPurgeCompleted } from './smsPartSql.js';

/** Rows one statement of the sweep deletes, and overdue messages one look stores: short transactions. */
const SWEEP_BATCH = 1000;

/**
 * The sweep of long inbound SMS parts, every HERALD_INBOUND_PARTS_SWEEP_SECONDS: a message whose first part waited
 * longer than HERALD_INBOUND_PARTS_WAIT_SECONDS is stored as it is (its other parts never came; never dropped), and
 * the parts of messages completed longer ago than that are forgotten (a part sent again after it is a new message).
 */
export function inboundJobs(ctx: AppContext, options: { partsWaitMs: number; sweepEveryMs: number }): Job[] {
  return [
    {
      name: 'inbound-sms-parts',
      everyMs: options.sweepEveryMs,
      run: async () => {
        const before = new Date(ctx.clock.nowMs() - options.partsWaitMs);
        while ((await smsPartsSweepOverdue(ctx, before, SWEEP_BATCH)) === SWEEP_BATCH);
        while ((await smsPartsPurgeCompleted(ctx.db, before, SWEEP_BATCH)) === SWEEP_BATCH);
      },
    },
  ];
}
