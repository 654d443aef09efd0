import type { Principal } from '../accounts/index.js';
import type { AppContext } from '../context.js';
import { sliceEnds } from '../db/jsonSlices.js';
import { HeraldError } from '../errors/catalogue.js';
import type { LoopStep } from '../shared/loop.js';
import { nothingStored } from './smppStatuses.js';
import {
  MAX_BATCH,
  messageRowBytes,
  ONE_TRANSACTION_BYTES,
  type SendItem,
  sendMessages,
  type SmppReceipts,
} from '../sending/index.js';

/**
 * What became of one message: its item of the send's answer, or what was thrown for it (a HeraldError refused it
 * before it was a message; anything else is a failure of Herald's).
 */
export type SubmitResult = { readonly item: SendItem } | { readonly error: unknown };

interface Waiting {
  readonly message: Record<string, unknown>;
  readonly done: (result: SubmitResult) => void;
}

/** The messages of one token waiting for their send; a lane exists while one of its runs is under way. */
interface Lane {
  readonly principal: Principal;
  readonly receipts: SmppReceipts | null;
  readonly queue: Waiting[];
  /** Runs under way: each sends one batch at a time. */
  runs: number;
  /** A run is about to take its first batch: what arrives now joins it. */
  gathering: boolean;
}

/**
 * Sends of one token under way at once. One at a time left the api's JavaScript and PostgreSQL taking turns on a
 * batch each (a bind's window of 100 stored at 2,800 a second, its next submits waiting for the answers); the HTTP
 * send gets the same overlap from a client's parallel POSTs. Their order is the client's own affair: SMPP answers a
 * window's submits in any order.
 */
const RUNS_PER_LANE = 4;

/**
 * submit_sm in batches: each token's messages (by the receipts they ask for) go to sendMessages, the HTTP send's
 * one function, as one batch per call, up to {@link RUNS_PER_LANE} calls at a time per token; a run takes what has
 * arrived in the turn it starts (the submits of one read of the socket), then what arrived while its call ran. A
 * message costs what a message of a 1000-message POST costs instead of a transaction of its own (3.7 ms of CPU per
 * message alone, 0.5 in a batch), and a lone submit_sm still goes at once. A batch refused for one message
 * (validation names its index) is taken apart: those before it go as a batch, that one is refused, the rest are
 * tried again, so a batch of n costs at most n calls, as n submit_sm sent alone would.
 */
export class SubmitBatches {
  private readonly lanes = new Map<string, Lane>();
  private readonly runs = new Set<Promise<void>>();

  constructor(
    private readonly ctx: AppContext,
    /** The step of the SMPP server's request failures that logs a batch not stored: an outage once, not a batch. */
    private readonly notStored: LoopStep,
  ) {}

  submit(principal: Principal, message: Record<string, unknown>, receipts: SmppReceipts | null): Promise<SubmitResult> {
    const key = `${principal.tokenId}\u0000${receipts?.final ?? ''}\u0000${receipts?.intermediate ? 1 : 0}`;
    return new Promise((done) => {
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = { principal, receipts, queue: [], runs: 0, gathering: false };
        this.lanes.set(key, lane);
      }
      lane.queue.push({ message, done });
      if (lane.gathering || lane.runs >= RUNS_PER_LANE) return;
      lane.runs++;
      const run: Promise<void> = this.run(key, lane).finally(() => this.runs.delete(run));
      this.runs.add(run);
    });
  }

  /** Resolves when the batches under way are stored and answered (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.runs]);
  }

  /**
   * Sends batches of the lane until its queue is empty; the run ends in the same turn (so no submit is left behind
   * without a run to take it), and the lane with its last run.
   */
  private async run(key: string, lane: Lane): Promise<void> {
    try {
      lane.gathering = true;
      await new Promise<void>((resolve) => setImmediate(resolve));
      lane.gathering = false;
      while (lane.queue.length > 0) await this.send(lane, nextBatch(lane.queue));
    } finally {
      if (--lane.runs === 0) this.lanes.delete(key);
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
          oneTransaction: true,
          ...(lane.receipts ? { smppReceipts: lane.receipts } : {}),
        });
        this.notStored.succeeded();
        result.body.items.forEach((item, i) => rest[i]!.done({ item }));
        return;
      } catch (error) {
        const index = error instanceof HeraldError ? error.extra.index : undefined;
        if (typeof index !== 'number' || index < 0 || index >= rest.length) {
          for (const w of rest) w.done({ error });
          // Logged once a batch, not once a submit_sm, and an outage once for all: it fails every batch of every
          // bind, and the clients send them again. A COMMIT that went unanswered is an error each time.
          if (!(error instanceof HeraldError)) {
            const fields = { messages: rest.length };
            if (nothingStored(error)) this.notStored.failed(error, fields);
            else this.ctx.log.error(Object.assign({ err: error }, fields), 'SMPP batch failed');
          }
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

/**
 * The queue's next batch: up to {@link MAX_BATCH} messages within {@link ONE_TRANSACTION_BYTES} of rows (at least
 * one; a message of 255 parts is far within). sendMessages stores it in one transaction (`oneTransaction`), all or
 * none: stored in slices, each committed by itself, a failure of a later slice would refuse with "send again"
 * (ESME_RMSGQFUL) messages an earlier slice had stored, and the client would send them twice. The cut keeps that
 * transaction as short as the HTTP send's unsliced ones.
 */
function nextBatch(queue: Waiting[]): Waiting[] {
  const count = Math.min(queue.length, MAX_BATCH);
  const [end] = sliceEnds(count, (i) => messageRowBytes(queue[i]!.message), ONE_TRANSACTION_BYTES);
  return queue.splice(0, end);
}
