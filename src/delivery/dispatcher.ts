import type { Logger } from 'pino';
import type { OutboundMessage } from '../connectors/index.js';
import type { Router } from '../connectors/index.js';
import type { Db } from '../db/db.js';
import type { NumberingPlan } from '../numbering/index.js';
import { lookupSubscriber } from '../numbering/index.js';
import { messageWindow } from '../schedule/index.js';
import { isUnconstrained, nextAllowedInstant, type SendWindow } from '../schedule/index.js';
import { DELIVERY_ERRORS, READ_TRACKED, whatsappWindowsOpenOf } from '../messages/index.js';
import { type ClaimedMessage, messageClaimDue } from '../messages/index.js';
import type { Clock } from '../util/clock.js';
import type { DeliveryWriter } from './deliveryWriter.js';
import type { Wakeup } from './wakeup.js';

export interface DispatcherOptions {
  /** Messages claimed per query. */
  readonly batchSize: number;
  /** How long a claim lasts; a worker that dies holding messages lets them fall due again after it. */
  readonly leaseMs: number;
  /** How long an idle dispatcher sleeps between claims (a Wakeup cuts it short). */
  readonly pollMs: number;
  /** Messages being handed to connectors at once, across all connectors. */
  readonly maxInFlight: number;
  /** Retry delay when no connector of the route is available. */
  readonly noRouteRetryMs: number;
  /**
   * The share (percent) of maxInFlight that only AUTHORIZE and TRANSACT messages may take: a flood of SERVICE and
   * PROMO messages never fills every place an authorisation code needs.
   */
  readonly urgentPercent: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  batchSize: 500,
  leaseMs: 60_000,
  pollMs: 250,
  maxInFlight: 4000,
  noRouteRetryMs: 2000,
  urgentPercent: 20,
};

/** AUTHORIZE and TRANSACT: taken first, with a share of the places kept for them. */
export const isUrgent = (trafficType: string): boolean => trafficType === 'AUTHORIZE' || trafficType === 'TRANSACT';

/**
 * Takes due messages from the queue and hands them to connectors. Claims are leased (SKIP LOCKED), so any number
 * of dispatchers in any number of processes share the queue without handing one message to a carrier twice;
 * outcomes go through the DeliveryWriter. A transient failure sends the message back to the queue for the next
 * allowed instant of its window, or makes it unsent when that is past its deadline.
 */
export class Dispatcher {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Of those, SERVICE and PROMO messages. */
  private bulkInFlight = 0;
  private capacityWaiter: (() => void) | undefined;
  claimed = 0;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      log: Logger;
      router: Router;
      writer: DeliveryWriter;
      plan: NumberingPlan;
      wakeup: Wakeup;
    },
    private readonly options: DispatcherOptions = DEFAULT_DISPATCHER_OPTIONS,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops claiming and waits for the messages in hand to reach an outcome (and their records to be written).
   * `handBack` runs once no more claims start, to have the connectors return what has not gone out yet.
   */
  async stop(handBack?: () => void): Promise<void> {
    this.running = false;
    this.deps.wakeup.notify();
    this.capacityWaiter?.();
    await this.loop;
    handBack?.();
    await Promise.allSettled([...this.inFlight]);
    await this.deps.writer.drain();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const room = this.options.maxInFlight - this.inFlight.size;
      if (room <= 0) {
        await new Promise<void>((resolve) => (this.capacityWaiter = resolve));
        this.capacityWaiter = undefined;
        continue;
      }
      let claimed: ClaimedMessage[];
      let windowsClosed: Set<string>;
      try {
        const now = this.deps.clock.now();
        claimed = await messageClaimDue(
          this.deps.db,
          now,
          Math.min(room, this.options.batchSize),
          this.options.leaseMs,
          Math.max(0, Math.min(room, this.options.batchSize, this.bulkRoom())),
        );
        windowsClosed = await closedChatWindows(this.deps.db, claimed, now);
      } catch (error) {
        // Claimed messages stay leased and fall due again when the lease ends.
        this.deps.log.error({ err: error }, 'claiming due messages failed');
        await this.deps.wakeup.wait(1000);
        continue;
      }
      this.claimed += claimed.length;
      for (const message of claimed) this.track(message, this.dispatch(message, windowsClosed.has(message.id)));
      if (claimed.length < Math.min(room, this.options.batchSize)) await this.deps.wakeup.wait(this.options.pollMs);
    }
  }

  /**
   * How many messages this process's API may hand over directly right now (see {@link takeDirect}): any, and of
   * them SERVICE and PROMO ones.
   */
  directRoom(): { any: number; bulk: number } {
    if (!this.running) return { any: 0, bulk: 0 };
    const any = Math.max(0, this.options.maxInFlight - this.inFlight.size);
    return { any, bulk: Math.max(0, Math.min(any, this.bulkRoom())) };
  }

  /** Places SERVICE and PROMO messages may still take. */
  private bulkRoom(): number {
    return Math.floor((this.options.maxInFlight * (100 - this.options.urgentPercent)) / 100) - this.bulkInFlight;
  }

  /**
   * Sends messages that this process's API stored already leased to it (the fast lane of a process running both
   * roles): they skip the claim query and the poll delay. If the process dies, their lease runs out and any worker
   * claims them, as with any claim.
   */
  takeDirect(messages: readonly ClaimedMessage[]): void {
    this.claimed += messages.length;
    // Their chat windows were checked when they were accepted, a moment ago.
    for (const message of messages) this.track(message, this.dispatch(message, false));
  }

  private track(message: ClaimedMessage, work: Promise<void>): void {
    const bulk = !isUrgent(message.traffic_type);
    this.inFlight.add(work);
    if (bulk) this.bulkInFlight++;
    void work.finally(() => {
      this.inFlight.delete(work);
      if (bulk) this.bulkInFlight--;
      if (this.capacityWaiter && this.inFlight.size < this.options.maxInFlight / 2) this.capacityWaiter();
    });
  }

  private async dispatch(message: ClaimedMessage, chatWindowClosed: boolean): Promise<void> {
    try {
      await this.send(message, chatWindowClosed);
    } catch (error) {
      // Nothing is recorded: the lease runs out and the message is claimed again.
      this.deps.log.error(
        { err: error, messageUuid: message.id },
        'dispatch failed; the message will be retried after its lease',
      );
    }
  }

  /**
   * Sends one claimed message, after checking again, at this moment, what may have changed since it was planned:
   * its deadline, its send window (a message claimed late waits for its next allowed instant)
   * and, for a free-form WHATSAPP message, its 24-hour chat window.
   */
  private async send(message: ClaimedMessage, chatWindowClosed: boolean): Promise<void> {
    const { writer, clock, router } = this.deps;
    const now = clock.now();
    const ref = { accountId: message.account_id, id: message.id, cascade: message.cascade_id !== null };
    if (message.planned_send_ms === null) {
      await writer.status({
        ...ref,
        status: 'unsent',
        at: now,
        errorCode: DELIVERY_ERRORS.windowNeverOpens,
        detail: 'the send window never opens before the deadline',
      });
      return;
    }
    if (now.getTime() > message.deadline_ms) {
      await writer.status({
        ...ref,
        status: 'unsent',
        at: now,
        errorCode: DELIVERY_ERRORS.deadlinePassed,
        detail: 'not sent before its deadline',
      });
      return;
    }
    if (chatWindowClosed) {
      await writer.status({
        ...ref,
        status: 'unsent',
        at: now,
        errorCode: DELIVERY_ERRORS.chatWindowClosed,
        detail: 'the 24-hour chat window had closed and no template matches',
      });
      return;
    }
    const window = this.windowOf(message);
    if (!isUnconstrained(window)) {
      const next = nextAllowedInstant(window, now.getTime(), message.deadline_ms);
      if (next === null) {
        await writer.status({
          ...ref,
          status: 'unsent',
          at: now,
          errorCode: DELIVERY_ERRORS.deadlinePassed,
          detail: 'its send window does not open again before its deadline',
        });
        return;
      }
      if (next > now.getTime()) {
        await writer.retry({ ...ref, dueAt: new Date(next), at: now, reason: 'outside its send window' });
        return;
      }
    }
    const connector = router.pick(message.channel_type, message.destination);
    if (!connector) {
      const anyRoute = router.candidates(message.channel_type, message.destination).length > 0;
      await this.retryOrGiveUp(
        message,
        now,
        this.options.noRouteRetryMs,
        anyRoute ? 'no connector of the route is available' : 'no route',
        DELIVERY_ERRORS.noRoute,
      );
      return;
    }
    const outcome = await connector.submit(outbound(message, now));
    const at = clock.now();
    switch (outcome.kind) {
      case 'accepted':
        await writer.sent({
          ...ref,
          connectorId: connector.id,
          at,
          carrierIds: outcome.carrierIds,
          readTracked: READ_TRACKED.has(message.channel_type),
        });
        return;
      case 'permanent':
        await writer.status({ ...ref, status: 'unsent', at, errorCode: outcome.errorCode, detail: outcome.reason });
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
   * Back to the queue for the next allowed instant after `retryAfterMs`, or unsent when none comes before the deadline.
   */
  private async retryOrGiveUp(
    message: ClaimedMessage,
    now: Date,
    retryAfterMs: number,
    reason: string,
    errorCode: number,
  ): Promise<void> {
    const ref = { accountId: message.account_id, id: message.id, cascade: message.cascade_id !== null };
    const next = nextAllowedInstant(this.windowOf(message), now.getTime() + retryAfterMs, message.deadline_ms);
    if (next === null) {
      await this.deps.writer.status({
        ...ref,
        status: 'unsent',
        at: now,
        errorCode,
        detail: `not sent before its deadline: ${reason}`,
      });
      return;
    }
    await this.deps.writer.retry({ ...ref, dueAt: new Date(next), at: now, reason });
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
  };
}
