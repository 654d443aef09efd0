import type { Logger } from 'pino';
import type { DirectHandOver } from '../context.js';
import type { Connector, OutboundMessage, SubmitOutcome } from '../connectors/index.js';
import type { Db } from '../db/db.js';
import { lookupSubscriber, type NumberingPlan } from '../numbering/index.js';
import { isUnconstrained, messageWindow, nextAllowedInstant, type SendWindow } from '../schedule/index.js';
import {
  type ClaimedMessage,
  type ClaimLimits,
  DELIVERY_ERRORS,
  messageClaimDue,
  messageClaimsEnd,
  messageNextDue,
  isReadTracked,
  type QueueFloor,
  whatsappWindowsOpenOf,
} from '../messages/index.js';
import { fromMicros, toMicros } from '../money/index.js';
import type { Route, RouteBook, RouteConnector } from '../routing/index.js';
import { type Channel, CHANNELS } from '../shared/channels.js';
import { stopListMatchOfAccounts } from '../stoplists/index.js';
import { DUE_LEFT_POLL_MS, ERROR_POLL_MS, Loop, LoopFailures, type LoopStep } from '../shared/loop.js';
import { TestSignal } from '../shared/testSignal.js';
import { type Clock } from '../util/clock.js';
import type { DeliveryWriter, StatusRecord } from './deliveryWriter.js';
import type { Wakeup } from './wakeup.js';

export interface SubmitterOptions {
  /** Messages claimed per query. */
  readonly batchSize: number;
  /** How long a claim lasts; a worker that dies holding messages lets them fall due again after it. */
  readonly leaseMs: number;
  /**
   * The longest an idle submitter sleeps between claims: a safety poll for a wake-up that was missed. It wakes
   * sooner when messages are announced (Wakeup), places free up, or the next stored message falls due.
   */
  readonly pollMs: number;
  /** Messages being handed to connectors at once, across all connectors. */
  readonly maxInFlight: number;
  /**
   * Of those, messages of one channel: a carrier that is slow or down holds at most this many of a worker's
   * places, and the other channels go on.
   */
  readonly channelInFlight: number;
  /** Retry delay when no connector of the route is available. */
  readonly noRouteRetryMs: number;
  /**
   * The share (percent) of maxInFlight that only AUTHORIZE and TRANSACT messages may take: a flood of SERVICE and
   * PROMO messages never fills every place an authorisation code needs.
   */
  readonly urgentPercent: number;
}

export const DEFAULT_SUBMITTER_OPTIONS: SubmitterOptions = {
  batchSize: 500,
  leaseMs: 60_000,
  pollMs: 5000,
  // A channel's places hold a burst of four clients' 1000-message POSTs in the fast lane: with 2000 (1600 of them
  // for SERVICE and PROMO) most of such a burst was stored unleased and claimed later, and the claims cost the
  // server a quarter more CPU and a fifth more WAL per message (docs/scaling.md, The fast lane's places). Three
  // channels' worth in all, as before.
  maxInFlight: 18_000,
  channelInFlight: 6000,
  noRouteRetryMs: 2000,
  urgentPercent: 20,
};

/** Messages of a claim handed to connectors in one turn of the event loop. */
const HAND_OVER_SLICE = 50;

/** AUTHORIZE and TRANSACT: taken first, with a share of the places kept for them. */
export const isUrgent = (trafficType: string): boolean => trafficType === 'AUTHORIZE' || trafficType === 'TRANSACT';

/**
 * Takes due messages from the queue and hands them to connectors. Claims are leased (SKIP LOCKED), so any number
 * of submitters in any number of processes share the queue without handing one message to a carrier twice;
 * outcomes go through the DeliveryWriter. A transient failure sends the message back to the queue for the next
 * allowed instant of its window, or makes it unsent when that is past its deadline.
 *
 * Its loop's {@link wake} is for places freed: it sleeps on it, and on the Wakeup of stored messages when it has room.
 */
export class Submitter extends Loop {
  private readonly inFlight = new Set<Promise<unknown>>();
  /**
   * Claim records with messages in hand, and how many: a record ends when the last one's outcome is written. A
   * message whose outcome could not be written keeps its record to the end of its lease (the record is dropped here).
   */
  private readonly claimsLeft = new Map<number, number>();
  /**
   * Records ended, not deleted yet: the next claim deletes them in its statement; a loop that went idle, or stops,
   * in one of its own. Until then they hold no message in `sending` (a retry or a reroute leaves its record).
   */
  private claimsEnded: number[] = [];
  /**
   * Places taken in all, per channel, and of them by SERVICE and PROMO messages: messages in hand and the places
   * reserved for messages the API is storing (see {@link directRoom}).
   */
  private readonly taken = { all: 0, bulk: 0 };
  private readonly channelTaken = new Map<Channel, { all: number; bulk: number }>(
    CHANNELS.map((channel) => [channel, { all: 0, bulk: 0 }]),
  );
  /** The limits of the claim being run: the fast lane leaves them to it. */
  private pending: ClaimLimits | undefined;
  /** Channels that had no room (or none for bulk) at the last claim: a place freed there wakes the loop. */
  private readonly pressed = new Set<Channel>();
  claimed = 0;
  /** Messages found on a stop list when their turn to be sent came (unsent 453), for the metrics. */
  stopListed = 0;
  /** Refusals that sent a message on through the next connector of its route (DESIGN 21), for the metrics. */
  rerouted = 0;
  /**
   * For tests: `claimed` fires at the end of each claim round with the number of messages it took; `looked` after
   * an idle loop's look at when the next message falls due (null: none waits).
   */
  readonly testSignals = { claimed: new TestSignal<number>(), looked: new TestSignal<number | null>() };
  /** The claims' and the next-due looks' failures: one outage of the loop, logged once. */
  private readonly claims: LoopStep;
  private readonly nextDueLooks: LoopStep;
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      log: Logger;
      /** The routes (DESIGN 21), kept current by its watcher. */
      routes: RouteBook;
      /** This process's connectors by id: the ones routes name. */
      connectors: ReadonlyMap<string, Connector>;
      writer: DeliveryWriter;
      plan: NumberingPlan;
      wakeup: Wakeup;
      /** Where the queue's oldest partition begins: the claim plans only the partitions from there. */
      floor: QueueFloor;
    },
    private readonly options: SubmitterOptions = DEFAULT_SUBMITTER_OPTIONS,
  ) {
    super(deps.clock);
    const failures = new LoopFailures(deps.log, deps.clock);
    this.claims = failures.step('claiming due messages failed');
    this.nextDueLooks = failures.step('reading the next due message failed');
  }

  /**
   * Stops claiming and waits for the messages in hand to reach an outcome (and their records to be written).
   * `handBack` runs once no more claims start, to have the connectors return what has not gone out yet.
   */
  override async stop(handBack?: () => void): Promise<void> {
    // The back-off after a failed claim waits on the Wakeup alone.
    this.deps.wakeup.notify();
    await super.stop();
    handBack?.();
    await Promise.allSettled([...this.inFlight]);
    await this.deps.writer.drain();
    await this.endClaims();
  }

  protected async run(): Promise<void> {
    while (this.running) {
      const limits = this.claimLimits();
      if (limits.total <= 0 || limits.channels.every((c) => c.any === 0)) {
        await this.idle();
        continue;
      }
      let claimed: ClaimedMessage[];
      let windowsClosed: Set<string>;
      let listed: Set<string>;
      this.pending = limits;
      const ended = this.claimsEnded;
      this.claimsEnded = [];
      try {
        const now = this.deps.clock.now();
        const ids = await this.deps.floor.ids(this.deps.db);
        claimed = await messageClaimDue(this.deps.db, now, limits, this.options.leaseMs, ids, ended);
        windowsClosed = await closedChatWindows(this.deps.db, claimed, now);
        listed = await stopListed(this.deps.db, claimed);
        this.claims.succeeded();
      } catch (error) {
        // Claimed messages stay leased and fall due again when the lease ends; the ended records wait for the next.
        this.claimsEnded.push(...ended);
        this.claims.failed(error);
        await this.deps.wakeup.wait(ERROR_POLL_MS);
        continue;
      } finally {
        this.pending = undefined;
      }
      this.claimed += claimed.length;
      const record = claimed[0]?.claim_id;
      if (record != null) this.claimsLeft.set(record, claimed.length);
      for (const [i, message] of claimed.entries()) {
        // A claim's hand-over runs on the event loop the API shares: a turn of I/O every few dozen messages keeps a
        // client's request (an authorisation code) from waiting behind a whole batch.
        if (i > 0 && i % HAND_OVER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
        this.count(message.channel_type, !isUrgent(message.traffic_type), 1);
        const refusal = listed.has(message.id) ? STOP_LISTED : windowsClosed.has(message.id) ? CHAT_CLOSED : undefined;
        this.track(message, this.handOver(message, refusal));
      }
      this.testSignals.claimed.signal(claimed.length);
      if (claimed.length < limits.total) await this.sleepUntilDue();
    }
  }

  /**
   * Sleeps until woken (new messages, places freed) or until the next message of the queue falls due, at most
   * pollMs. A timer that finds nothing due (the safety poll) sleeps again without a claim, the bigger statement.
   */
  private async sleepUntilDue(): Promise<void> {
    let next = await this.nextDue();
    while (this.running) {
      const { pollMs } = this.options;
      const wait =
        next === undefined ? Math.min(pollMs, ERROR_POLL_MS) : next === null ? pollMs : next - this.deps.clock.nowMs();
      if (await this.idle(wait <= 0 ? Math.min(pollMs, DUE_LEFT_POLL_MS) : Math.min(pollMs, wait))) return;
      // No claim came in that time to delete them.
      await this.endClaims();
      next = await this.nextDue();
      if (next !== undefined && next !== null && next <= this.deps.clock.nowMs()) return;
    }
  }

  /** Whether the loop sleeps until woken (tests: what it does next is the answer to a wake). */
  get sleeping(): boolean {
    return this.wake.waiting;
  }

  /** When the next message of the queue falls due (ms), null when none waits, undefined when it could not be read. */
  private async nextDue(): Promise<number | null | undefined> {
    try {
      const next = (await messageNextDue(this.deps.db, await this.deps.floor.ids(this.deps.db)))?.getTime() ?? null;
      this.nextDueLooks.succeeded();
      this.testSignals.looked.signal(next);
      return next;
    } catch (error) {
      this.nextDueLooks.failed(error);
      return undefined;
    }
  }

  /**
   * Waits until places free up (half of all, or half of a pressed channel's), new messages are announced or
   * `pollMs` passes; without `pollMs`, for places only. True when woken, false when the time passed.
   */
  private idle(pollMs?: number): Promise<boolean> {
    return pollMs === undefined ? this.wake.wait() : this.wake.wait(pollMs, this.deps.wakeup);
  }

  /** What the next claim may take: of the batch, what is left of the places in all and of each channel's. */
  private claimLimits(): ClaimLimits {
    const room = this.room();
    const total = Math.min(room.any, this.options.batchSize);
    const bulk = Math.min(total, room.bulk);
    this.pressed.clear();
    const channels = CHANNELS.map((channel) => {
      const lane = this.channelRoom(channel);
      if (lane.any === 0 || lane.bulk === 0) this.pressed.add(channel);
      return { channel, any: Math.min(total, lane.any), bulk: Math.min(bulk, lane.bulk) };
    });
    return { total, bulk, channels };
  }

  /** Places left in all: any, and for SERVICE and PROMO messages; less what a claim being run may take. */
  private room(): { any: number; bulk: number } {
    const any = this.options.maxInFlight - this.taken.all - (this.pending?.total ?? 0);
    const bulk = this.bulkShare(this.options.maxInFlight) - this.taken.bulk - (this.pending?.bulk ?? 0);
    return { any: Math.max(0, any), bulk: Math.max(0, Math.min(any, bulk)) };
  }

  /** Places left to a channel's messages: any, and SERVICE and PROMO ones; less what a claim being run may take. */
  private channelRoom(channel: Channel): { any: number; bulk: number } {
    const taken = this.channelTaken.get(channel)!;
    const pending = this.pending?.channels.find((c) => c.channel === channel);
    const any = this.options.channelInFlight - taken.all - (pending?.any ?? 0);
    const bulk = this.bulkShare(this.options.channelInFlight) - taken.bulk - (pending?.bulk ?? 0);
    return { any: Math.max(0, any), bulk: Math.max(0, Math.min(any, bulk)) };
  }

  /** Of `places`, those SERVICE and PROMO messages may hold. */
  private bulkShare(places: number): number {
    return Math.floor((places * (100 - this.options.urgentPercent)) / 100);
  }

  /** Counts places taken (or, with a negative delta, freed) by messages of a channel. */
  private count(channel: Channel, bulk: boolean, delta: number): void {
    const taken = this.channelTaken.get(channel)!;
    this.taken.all += delta;
    taken.all += delta;
    if (bulk) {
      this.taken.bulk += delta;
      taken.bulk += delta;
    }
    // Only a waiting loop is woken: a place freed while it claims is not kept for later, its next claim sees it.
    if (delta > 0 || !this.wake.waiting) return;
    const half = this.options.channelInFlight / 2;
    const channelFreed = this.pressed.has(channel) && taken.all <= half && taken.bulk <= this.bulkShare(half);
    if (channelFreed) this.pressed.delete(channel);
    if (channelFreed || this.taken.all < this.options.maxInFlight / 2) this.wake.notify();
  }

  /**
   * The fast lane of a process running both roles: the API stores messages due now already leased to this
   * submitter, as far as it has places, and hands them over after its commit; they skip the claim query and the
   * poll delay. A place is reserved when the API takes it (counted as the claim counts them, so that neither
   * overfills a channel) and given back when the hand-over closes without the message. If the process dies, the
   * messages' lease runs out and any worker claims them, as with any claim.
   */
  directRoom(): DirectHandOver {
    // Places reserved and not handed over yet, by channel and kind.
    const reserved = new Map<string, number>();
    const key = (channel: Channel, bulk: boolean) => `${channel}/${bulk}`;
    return {
      take: (channel, urgent) => {
        if (!this.running) return false;
        const room = this.room();
        const lane = this.channelRoom(channel);
        if (room.any === 0 || lane.any === 0 || (!urgent && (room.bulk === 0 || lane.bulk === 0))) return false;
        this.count(channel, !urgent, 1);
        reserved.set(key(channel, !urgent), (reserved.get(key(channel, !urgent)) ?? 0) + 1);
        return true;
      },
      hand: (messages) => {
        this.claimed += messages.length;
        for (const message of messages) {
          const bulk = !isUrgent(message.traffic_type);
          const k = key(message.channel_type, bulk);
          const left = reserved.get(k) ?? 0;
          if (left > 0) reserved.set(k, left - 1);
          else this.count(message.channel_type, bulk, 1);
          // Its chat window and the stop lists were checked when it was accepted, a moment ago.
          this.track(message, this.handOver(message, undefined));
        }
      },
      close: () => {
        for (const [k, n] of reserved) {
          const [channel, bulk] = k.split('/') as [Channel, string];
          this.count(channel, bulk === 'true', -n);
        }
        reserved.clear();
      },
    };
  }

  /** Keeps a message's work in hand until it ends, then frees its place. */
  private track(message: ClaimedMessage, work: Promise<boolean>): void {
    const done = work.then((recorded) => {
      this.claimDone(message.claim_id, recorded);
      this.inFlight.delete(done);
      this.count(message.channel_type, !isUrgent(message.traffic_type), -1);
    });
    this.inFlight.add(done);
  }

  /**
   * One message of a claim record is done, its outcome written (`recorded`) or not: the record ends with its last
   * message's outcome, or stays to its lease's end when one was not written (its messages are held until then).
   */
  private claimDone(record: number | null, recorded: boolean): void {
    if (record === null) return;
    const left = this.claimsLeft.get(record);
    if (left === undefined) return;
    if (!recorded) {
      this.claimsLeft.delete(record);
      return;
    }
    if (left > 1) {
      this.claimsLeft.set(record, left - 1);
      return;
    }
    this.claimsLeft.delete(record);
    this.claimsEnded.push(record);
  }

  /** Deletes the records ended since the last claim. Not deleted (the database away): their lease's end does it. */
  private async endClaims(): Promise<void> {
    if (this.claimsEnded.length === 0) return;
    const ended = this.claimsEnded;
    this.claimsEnded = [];
    await messageClaimsEnd(this.deps.db, ended).catch((error: unknown) =>
      this.deps.log.warn({ err: error }, 'claim records were not deleted'),
    );
  }

  /** Sends the message and writes its outcome; false when the outcome was not written. */
  private async handOver(message: ClaimedMessage, refusal: Refusal | undefined): Promise<boolean> {
    try {
      await this.send(message, refusal);
      return true;
    } catch (error) {
      // Nothing is recorded: the lease runs out and the message is claimed again.
      this.deps.log.error(
        { err: error, messageUuid: message.id },
        'dispatch failed; the message will be retried after its lease',
      );
      return false;
    }
  }

  /**
   * Sends one claimed message, after checking again, at this moment, what may have changed since it was planned:
   * its deadline, its send window (a message claimed late waits for its next allowed instant), the stop lists and,
   * for a free-form WHATSAPP message, its 24-hour chat window (`refusal`: what the claim's checks found).
   */
  private async send(message: ClaimedMessage, refusal: Refusal | undefined): Promise<void> {
    const { writer, clock } = this.deps;
    const now = clock.now();
    const ref = recordRef(message);
    if (message.planned_send_ms === null) {
      await this.end(message, {
        status: 'unsent',
        at: now,
        errorCode: DELIVERY_ERRORS.windowNeverOpens,
        detail: 'the send window never opens before the deadline',
        ...ref,
      });
      return;
    }
    if (now.getTime() > message.deadline_ms) {
      await this.end(message, {
        status: 'unsent',
        at: now,
        errorCode: DELIVERY_ERRORS.deadlinePassed,
        detail: 'not sent before its deadline',
        ...ref,
      });
      return;
    }
    if (refusal) {
      if (refusal === STOP_LISTED) this.stopListed++;
      await this.end(message, { status: 'unsent', at: now, ...refusal, ...ref });
      return;
    }
    const window = this.windowOf(message);
    if (!isUnconstrained(window)) {
      const next = nextAllowedInstant(window, now.getTime(), message.deadline_ms);
      if (next === null) {
        await this.end(message, {
          status: 'unsent',
          at: now,
          errorCode: DELIVERY_ERRORS.deadlinePassed,
          detail: 'its send window does not open again before its deadline',
          ...ref,
        });
        return;
      }
      if (next > now.getTime()) {
        await this.retryAt({ dueAt: new Date(next), at: now, reason: 'outside its send window', ...ref });
        return;
      }
    }
    const routing = this.route(message);
    const via = routing?.order[0];
    if (!routing || !via) {
      await this.retryOrGiveUp(
        message,
        now,
        this.options.noRouteRetryMs,
        routing ? 'no connector of the route is available' : 'no route',
        DELIVERY_ERRORS.noRoute,
      );
      return;
    }
    const { via: used, outcome } = await this.submitRerouting(message, routing.route, routing.order, now);
    const connector = this.deps.connectors.get(used.connectorId)!;
    const at = clock.now();
    switch (outcome.kind) {
      case 'accepted': {
        const sent = writer.sent({
          connectorId: connector.id,
          at,
          carrierIds: outcome.carrierIds,
          readTracked: isReadTracked(message.channel_type, message.content),
          ...(outcome.final ? { receiptsFollow: false } : {}),
          ...(outcome.buyPrice === undefined ? {} : { buyPrice: outcome.buyPrice }),
          route: { id: routing.route.id, buyPrice: buyPriceOf(used, message.total_parts) },
          ...(outcome.pollUntil === undefined ? {} : { pollUntil: outcome.pollUntil }),
          ...ref,
        });
        if (!outcome.final) return sent;
        // The answer was the outcome too (Telegram's Bot API): its receipt joins the submission in the same flush,
        // matched in memory (nothing later looks for it, so the submission is not stored).
        const { state, errorCode } = outcome.final;
        const receipt = { connectorId: connector.id, carrierId: outcome.carrierIds[0]!, state, at, errorCode };
        await Promise.all([sent, writer.receipts([receipt])]);
        return;
      }
      case 'permanent':
        await this.end(message, { status: 'unsent', at, errorCode: outcome.errorCode, detail: outcome.reason, ...ref });
        return;
      case 'transient':
        await this.retryOrGiveUp(
          message,
          at,
          outcome.retryAfterMs,
          outcome.reason,
          outcome.errorCode ?? DELIVERY_ERRORS.deadlinePassed,
        );
        return;
    }
  }

  /**
   * Submits through the route's first connector; while the answer is a refusal the route's reroute lists (DESIGN 21)
   * and tries are left, through the next one, at once and unseen by the client: the message stays `sending`, and only
   * the last answer is recorded. Refusals after receipts (undelivered) are not rerouted here.
   */
  private async submitRerouting(
    message: ClaimedMessage,
    route: Route,
    order: readonly RouteConnector[],
    now: Date,
  ): Promise<{ via: RouteConnector; outcome: SubmitOutcome }> {
    const codes = new Set(route.reroute?.errorCodes ?? []);
    // Rerouted after a receipt already: those tries count too.
    const max = (route.reroute?.max ?? 0) - (message.reroute?.from.length ?? 0);
    for (let i = 0; ; i++) {
      const via = order[i]!;
      const outcome = await this.deps.connectors.get(via.connectorId)!.submit(outbound(message, now));
      const again =
        outcome.kind === 'permanent' &&
        codes.has(outcome.errorCode) &&
        i < max &&
        i + 1 < order.length &&
        this.deps.clock.nowMs() < message.deadline_ms;
      if (!again) return { via, outcome };
      this.rerouted++;
      this.deps.log.debug(
        { messageUuid: message.id, connectorId: via.connectorId, errorCode: outcome.errorCode, routeId: route.id },
        'refused; rerouted to the next connector of the route',
      );
    }
  }

  /**
   * Records a message that will not be sent. One a carrier's failure rerouted (DESIGN 21) was sent once, as its client
   * was told: it ends with that failure, not as unsent.
   */
  private end(message: ClaimedMessage, record: StatusRecord): Promise<void> {
    const failed = message.reroute;
    if (!failed) return this.deps.writer.status(record);
    return this.deps.writer.status(
      Object.assign({}, record, {
        status: failed.status,
        errorCode: failed.errorCode,
        detail: `rerouted from ${failed.from.join(', ')}, then ${record.detail ?? `error ${record.errorCode}`}`,
      }),
    );
  }

  /** The message's route and its connectors usable now (up, carrying its content), in the order to try them. */
  private route(message: ClaimedMessage): ReturnType<RouteBook['choose']> {
    const { connectors, routes } = this.deps;
    return routes.choose(
      {
        accountId: message.account_id,
        channel: message.channel_type,
        destination: message.destination,
        trafficType: message.traffic_type,
        senderName: message.sender_name,
        country: message.country,
        operator: message.brand,
      },
      (id) => {
        const connector = connectors.get(id);
        return (
          connector !== undefined &&
          connector.available() &&
          (connector.carries?.(message.content) ?? true) &&
          !message.reroute?.from.includes(id)
        );
      },
    );
  }

  /**
   * Back to the queue for the next allowed instant after `retryAfterMs`, or unsent when none comes before the deadline.
   */
  private async retryOrGiveUp(
    message: ClaimedMessage,
    now: Date,
    retryAfterMs: number,
    reason: string,
    errorCode: number,
  ): Promise<void> {
    const ref = recordRef(message);
    const next = nextAllowedInstant(this.windowOf(message), now.getTime() + retryAfterMs, message.deadline_ms);
    if (next === null) {
      await this.end(message, {
        status: 'unsent',
        at: now,
        errorCode,
        detail: `not sent before its deadline: ${reason}`,
        ...ref,
      });
      return;
    }
    await this.retryAt({ dueAt: new Date(next), at: now, reason, ...ref });
  }

  /**
   * Back to the queue for a later instant; then the loop goes round once, so that it sleeps no longer than until
   * that instant (it reads the next due time when it goes idle).
   */
  private async retryAt(retry: Parameters<DeliveryWriter['retry']>[0]): Promise<void> {
    await this.deps.writer.retry(retry);
    // Written, it left its claim's record (claimsReleaseCte): it falls due at its time.
    this.deps.wakeup.notify();
  }

  private windowOf(message: ClaimedMessage): SendWindow {
    const fields = {
      useLocalTime: message.use_local_time,
      localSendTime: message.local_send_time,
      localCompletionTime: message.local_completion_time,
      hours: message.hours,
      days: message.days,
      ttl: message.ttl,
    };
    // The zones are looked up only for a window that has something to check.
    if (!fields.localSendTime && !fields.localCompletionTime && !fields.hours && !fields.days)
      return messageWindow(fields, []);
    return messageWindow(fields, lookupSubscriber(this.deps.plan, message.destination, message.country).zones);
  }
}

/** Why a claimed message is not sent: the unsent status's error code and detail. */
interface Refusal {
  readonly errorCode: number;
  readonly detail: string;
}
const STOP_LISTED: Refusal = {
  errorCode: DELIVERY_ERRORS.stopListed,
  detail: 'the destination is on a stop list',
};
const CHAT_CLOSED: Refusal = {
  errorCode: DELIVERY_ERRORS.chatWindowClosed,
  detail: 'the 24-hour chat window had closed and no template matches',
};

/** The claimed messages whose destination was put on a stop list since they were accepted: one query per claim. */
async function stopListed(db: Db, claimed: readonly ClaimedMessage[]): Promise<Set<string>> {
  const listed = await stopListMatchOfAccounts(
    db,
    claimed.map((m) => ({
      accountId: m.account_id,
      channelType: m.channel_type,
      senderName: m.sender_name,
      destination: m.destination,
      trafficType: m.traffic_type,
    })),
  );
  return new Set(claimed.filter((_, i) => listed[i]).map((m) => m.id));
}

/**
 * The free-form WHATSAPP messages among claimed ones (no template matched them when they were accepted) whose
 * 24-hour chat window has closed since: one query per claim, and none when there are no such messages.
 */
async function closedChatWindows(db: Db, claimed: readonly ClaimedMessage[], now: Date): Promise<Set<string>> {
  const freeForm = claimed.filter((m) => m.channel_type === 'WHATSAPP' && m.template_id === null);
  const closed = new Set<string>();
  const byAccount = new Map<number, ClaimedMessage[]>();
  for (const m of freeForm) byAccount.set(m.account_id, [...(byAccount.get(m.account_id) ?? []), m]);
  for (const [accountId, messages] of byAccount) {
    const open = await whatsappWindowsOpenOf(
      db,
      accountId,
      messages.map((m) => [m.sender_name, m.destination]),
      now,
    );
    for (const m of messages) if (!open.has(`${m.sender_name}\u0000${m.destination}`)) closed.add(m.id);
  }
  return closed;
}

/** What a connector is given: the lifetime left (at least a second) rather than the ttl asked for. */
function outbound(message: ClaimedMessage, now: Date): OutboundMessage {
  return {
    accountId: message.account_id,
    id: message.id,
    channel: message.channel_type,
    senderName: message.sender_name,
    destination: message.destination,
    content: message.content,
    totalParts: message.total_parts,
    ttlSeconds: Math.max(1, Math.floor((message.expires_ms - now.getTime()) / 1000)),
    externalMessageId: message.external_message_id,
    urgent: isUrgent(message.traffic_type),
  };
}

/** A route connector's buy price for all of a message's parts, or null when the route names none. */
function buyPriceOf(via: RouteConnector, parts: number): { amount: string; currency: string } | null {
  if (!via.buyPrice) return null;
  return { amount: fromMicros(toMicros(via.buyPrice.amount) * BigInt(parts)), currency: via.buyPrice.currency };
}

/**
 * What each record of a claimed message's outcome names: the message, and the claim's attempt, so that a retry or
 * an end written after the lease ran out and the message was claimed again changes nothing (the sent record is a
 * fact about the carrier and always applies).
 */
function recordRef(message: ClaimedMessage): {
  accountId: number;
  id: string;
  cascade: boolean;
  attempt: number;
  claim?: number;
} {
  return {
    accountId: message.account_id,
    id: message.id,
    cascade: message.cascade_id !== null,
    attempt: message.attempts,
    ...(message.claim_id === null ? {} : { claim: message.claim_id }),
  };
}
