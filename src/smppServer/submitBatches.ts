import type { Principal } from '../accounts/index.js';
import type { AppContext } from '../context.js';
import { HeraldError } from '../errors/catalogue.js';
import { MAX_BATCH, type SendItem, sendMessages } from '../sending/index.js';

/**
 * What became of one message: its item of the send's answer, or what was thrown for it (a HeraldError refused it
 * before it was a message; anything else is a failure of Herald's).
 */
export type SubmitResult = { readonly item: SendItem } | { readonly error: unknown };

interface Waiting {
  readonly message: Record<string, unknown>;
  readonly done: (result: SubmitResult) => void;
}

/** The messages of one token waiting for their send; a lane exists while its run is under way. */
interface Lane {
  readonly principal: Principal;
  readonly receipts: boolean;
  readonly queue: Waiting[];
}

/**
 * submit_sm in batches: each token's messages (with and without receipts apart) go to sendMessages, the HTTP send's
 * one function, as one batch per call, one call at a time per token; what arrives while a call runs is the next
 * batch. A message costs what a message of a 1000-message POST costs instead of a transaction of its own (3.7 ms of
 * CPU per message alone, 0.5 in a batch), and a lone submit_sm still goes at once. A batch refused for one message
 * (validation names its index) is taken apart: those before it go as a batch, that one is refused, the rest are
 * tried again, so a batch of n costs at most n calls, as n submit_sm sent alone would.
 */
export class SubmitBatches {
  private readonly lanes = new Map<string, Lane>();
  private readonly runs = new Set<Promise<void>>();

  constructor(private readonly ctx: AppContext) {}

  submit(principal: Principal, message: Record<string, unknown>, receipts: boolean): Promise<SubmitResult> {
    const key = `${principal.tokenId}\u0000${receipts ? 1 : 0}`;
    return new Promise((done) => {
      const running = this.lanes.get(key);
      if (running) {
        running.queue.push({ message, done });
        return;
      }
      const lane: Lane = { principal, receipts, queue: [{ message, done }] };
      this.lanes.set(key, lane);
      const run: Promise<void> = this.run(key, lane).finally(() => this.runs.delete(run));
      this.runs.add(run);
    });
  }

  /** Resolves when the batches under way are stored and answered (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.runs]);
  }

  /** Sends the lane's batches until its queue is empty; the lane ends in the same turn, so no submit is left behind. */
  private async run(key: string, lane: Lane): Promise<void> {
    try {
      while (lane.queue.length > 0) await this.send(lane, lane.queue.splice(0, MAX_BATCH));
    } finally {
      this.lanes.delete(key);
    }
  }

  private async send(lane: Lane, batch: Waiting[]): Promise<void> {
    let rest = batch;
    while (rest.length > 0) {
      try {
        const result = await sendMessages(this.ctx, {
          principal: lane.principal,
          body: rest.map((w) => w.message),
          idempotencyKey: undefined,
          ...(lane.receipts ? { receiptsVia: 'smpp' as const } : {}),
        });
        result.body.items.forEach((item, i) => rest[i]!.done({ item }));
        return;
      } catch (error) {
        const index = error instanceof HeraldError ? error.extra.index : undefined;
        if (typeof index !== 'number' || index < 0 || index >= rest.length) {
          for (const w of rest) w.done({ error });
          return;
        }
        // Those before the refused one passed validation: they go as a batch; after it, the rest is tried again.
        const before = rest.slice(0, index);
        rest[index]!.done({ error });
        rest = rest.slice(index + 1);
        if (before.length > 0) await this.send(lane, before);
      }
    }
  }
}
