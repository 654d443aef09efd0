import smpp from 'smpp';
import { wakeAtCommit } from '../db/wake.js';
import {
  callbackSmppAck,
  callbackSmppEnd,
  callbackSmppPostEvents,
  callbackSmppPostsClaim,
  callbackSmppRelease,
  callbackSmppRenew,
  type SmppEvent,
  type SmppPost,
  type SmppPostsShare,
} from '../callbacks/index.js';
import { receiptFields, receiptTlvs, ShortMessagePdu } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import { type MessageReceiptFacts, messageReceiptFacts } from '../messages/index.js';
import { LoopFailures, type LoopStep } from '../shared/loop.js';
import type { ClockTimer } from '../util/clock.js';
import { yymmddhhmm } from '../util/time.js';
import { WriteBatches } from '../util/writeBatches.js';
import type { ClientSession, SmppServer } from './smppServer.js';
import { MESSAGE_STATE } from './smppStatuses.js';

/** The receipt text's `stat:` by Herald's status: the final ones, and `sent` for an intermediate notification. */
const STAT: Record<string, string> = {
  delivered: 'DELIVRD',
  undelivered: 'UNDELIV',
  unsent: 'REJECTD',
  sent: 'ENROUTE',
};

/** esm_class of a receipt: an SMSC delivery receipt (the final status) or an intermediate notification (`sent`). */
const RECEIPT_ESM_CLASS: Record<string, number> = { delivered: 0x04, sent: 0x20 };

type Outcome = 'acknowledged' | 'refused' | 'lost';

/** A POST in hand: its account and id, the end of its lease, and where its delivery is. */
interface Held {
  readonly accountId: number;
  readonly postId: string;
  leaseUntil: Date;
  /**
   * `delivering` (its lease renewed past half its span), `ending` (every event answered or lost: it ends, or is given
   * back once a renewal under way has set its lease; no later renewal takes it), or `taken`: its lease ran out (the
   * process stalled past it) and another process took the POST, found at a renewal that failed. That process delivers
   * it now, and this one sends none of its events it has not sent yet.
   */
  state: 'delivering' | 'ending' | 'taken';
}

/** An event of an SMPP POST with what its deliver_sm says of the message: null when retention removed it. */
export interface SmppReceipt extends SmppEvent {
  readonly message: MessageReceiptFacts | null;
}

/**
 * Delivers the receipts and MO of the accounts bound here as receivers (DESIGN 22): leases their SMPP POSTs from
 * the callback outbox (callbacks/smppPostSql.ts), sends each event as one deliver_sm to one of the account's
 * receiver or transceiver binds (within each bind's window), and records each deliver_sm_resp with ESME_ROK at once
 * per event: an acknowledged event is never sent again, the others of its POST are, on the next bind (the lease is
 * given back when the bind closes) or after `retryMs` when the client refused them.
 */
export class ReceiptDelivery {
  private timer: ClockTimer | undefined;
  private running = false;
  /**
   * The last renewal of the leases in hand: a POST given back waits for it, so that it names the lease that renewal
   * may have set (given back with the one before, it matched nothing and stayed leased to no one until that ran out).
   */
  private renewal: Promise<void> = Promise.resolve();
  private again = false;
  private stopped = true;
  /**
   * The POSTs in hand (delivering, or waiting for room in a window): each delivery, its POST's account and id, and
   * the end of its lease. A POST stays in hand as long as its client takes to answer its events, which for a slow
   * client can be longer than a lease: each look renews those past half of theirs, so that no other process takes
   * them meanwhile and sends again what this one has sent (and had acknowledged: the acknowledgements of a POST are
   * written when it ends).
   */
  private readonly inFlight = new Map<Promise<void>, Held>();
  /** Where each look's turns start: with another account each look. */
  private turn = 0;
  /**
   * Events waiting for room in a receiver window, per account, in order: an answer wakes one of its own account's.
   * Waking every waiter of every account on each answer cost each answer as many looks as events waited: a client
   * that answered slowly (64 batches of 100 receipts waiting) made every other account's answers pay for it.
   */
  private readonly slotWaiters = new Map<number, (() => void)[]>();
  /** Looks for a receiver with room (tests count them: a look per answer, not per waiting event). */
  slotLooks = 0;
  /** POSTs in hand found taken by another process (tests read it). */
  leasesTaken = 0;
  /** POSTs whose every event is acknowledged, ended together (callbackSmppEnd). */
  private readonly ends: WriteBatches<string>;
  /** The looks for receipts: a database outage logged once, not once a look. */
  private readonly looks: LoopStep;

  constructor(
    private readonly server: SmppServer,
    private readonly ctx: AppContext,
  ) {
    this.ends = new WriteBatches<string>(async (ids) => {
      await callbackSmppEnd(this.ctx.db, ids, this.ctx.clock.now());
    }, server.options.receiptPosts.process);
    this.looks = new LoopFailures(ctx.log, ctx.clock).step('looking for SMPP receipts failed');
  }

  start(): void {
    this.stopped = false;
    this.poke();
  }

  /** Stops looking for receipts and waits for those in flight (they end as their binds answer or close). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  async drain(): Promise<void> {
    for (const accountId of [...this.slotWaiters.keys()]) this.freeSlots(accountId);
    await Promise.all([...this.inFlight.keys()]);
  }

  /** Looks for receipts now (a receiver bound, a POST ended). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.timer = undefined;
    void this.round();
  }

  private async round(): Promise<void> {
    this.running = true;
    this.again = false;
    /** POSTs leased by this round and not yet handed to a delivery. */
    let leased: SmppPost[] = [];
    try {
      const accounts = [
        ...new Set(
          this.server
            .bound()
            .filter((cs) => cs.receives && cs.delivers.size < this.server.options.deliverWindow)
            .map((cs) => cs.bind!.principal.accountId),
        ),
      ];
      const now = this.ctx.clock.now();
      const { leaseMs } = this.server.options;
      this.renewal = this.renewLeases(now, leaseMs);
      await this.renewal;
      const room = this.server.options.receiptPosts.process - this.inFlight.size;
      const shares = this.shares(accounts);
      if (shares.length > 0 && room > 0) {
        const posts = await callbackSmppPostsClaim(this.ctx.db, shares, now, leaseMs, room);
        leased = posts;
        // A lane forms nothing while its newest POST waits for a first lease: the workers' senders, which watch the
        // lane, are told it moved (a notification, not a poll's wait).
        if (posts.some((post) => post.attempts === 1)) await wakeAtCommit(this.ctx.db, 'callbacks');
        const events = await callbackSmppPostEvents(this.ctx.db, posts);
        // The messages apart (the callback outbox knows events, messages/ the messages), by their span of ids.
        const facts = await messageReceiptFacts(this.ctx.db, [...events.values()].flat());
        for (const post of posts) {
          const receipts = events.get(post.id)!.map((e) => ({ message: facts.get(e.message_id) ?? null, ...e }));
          const held: Held = {
            accountId: post.account_id,
            postId: post.id,
            leaseUntil: post.lease_until,
            state: 'delivering',
          };
          const delivery: Promise<void> = this.deliverPost(post, held, receipts)
            .catch((error: unknown) => this.ctx.log.error({ err: error }, 'SMPP receipts not delivered'))
            .finally(() => {
              this.inFlight.delete(delivery);
              this.poke();
            });
          // Held from here, with the delivery that gives it back: a POST of a look that failed before is not.
          this.inFlight.set(delivery, held);
        }
        leased = [];
        // Only a look that asked the database says it is back.
        this.looks.succeeded();
      }
    } catch (error) {
      this.looks.failed(error);
      // Given back for the next look, or, the database away, to the end of their lease.
      if (leased.length > 0)
        await callbackSmppRelease(this.ctx.db, new Map(leased.map((p) => [p.id, p.lease_until])), null).catch(() => {});
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    if (this.again) {
      this.poke();
      return;
    }
    // Receipts are formed by the workers' callback sender: looked for at this pace while a receiver is bound.
    if (this.server.bound().some((cs) => cs.receives)) {
      this.timer = this.ctx.clock.setTimer(this.server.options.pollMs, () => {
        this.timer = undefined;
        this.poke();
      });
    }
  }

  /**
   * Renews the leases in hand that are past half their span (none while clients answer as they should: a POST ends
   * within a second). One that another process took meanwhile (this one stalled past its end) is left to it: this
   * process sends none of its events it has not sent yet.
   */
  private async renewLeases(now: Date, leaseMs: number): Promise<void> {
    // A loop, not a filtered copy: every look (several a second under load) passes here.
    const half = now.getTime() + leaseMs / 2;
    let due: Map<string, Held> | undefined;
    for (const held of this.inFlight.values())
      if (held.state === 'delivering' && held.leaseUntil.getTime() < half) (due ??= new Map()).set(held.postId, held);
    if (!due) return;
    const until = new Date(now.getTime() + leaseMs);
    const renewed = await callbackSmppRenew(
      this.ctx.db,
      new Map([...due].map(([id, held]) => [id, held.leaseUntil])),
      until,
    );
    // Each entry is the one in hand: one whose delivery ended meanwhile is no longer there to read it.
    for (const [id, held] of due) {
      if (renewed.has(id)) {
        held.leaseUntil = until;
        continue;
      }
      // Not renewed: it came to its end meanwhile, or another process took it.
      if (held.state !== 'delivering') continue;
      held.state = 'taken';
      this.leasesTaken++;
      // Its events waiting for room leave now, not at their turn: the POST stops holding a place of its account.
      this.freeSlots(held.accountId);
      this.ctx.log.warn(
        { deliveryId: id, accountId: held.accountId },
        'SMPP receipts: another process took a POST whose lease ran out here; its events left to it',
      );
    }
  }

  /**
   * What the next claim may take of each account's POSTs: the accounts below their limit, each up to what it has
   * left of it, in turns that start with another account each look (the claim gives every account's first POST
   * before any account's second, and places only to accounts that have POSTs open).
   */
  private shares(accounts: readonly number[]): SmppPostsShare[] {
    const limit = this.server.options.receiptPosts.account;
    const held = this.heldByAccount();
    const open = accounts.filter((a) => (held.get(a) ?? 0) < limit);
    if (open.length === 0) return [];
    const start = this.turn++ % open.length;
    return [...open.slice(start), ...open.slice(0, start)].map((accountId) => ({
      accountId,
      limit: limit - (held.get(accountId) ?? 0),
    }));
  }

  /** POSTs in hand per account, counted from {@link inFlight} (at most `receiptPosts.process` of them). */
  private heldByAccount(): Map<number, number> {
    const held = new Map<number, number>();
    for (const { accountId } of this.inFlight.values()) held.set(accountId, (held.get(accountId) ?? 0) + 1);
    return held;
  }

  /**
   * Sends a POST's unacknowledged events; records those acknowledged; gives the POST back unless it ended (or another
   * process took it: then its lease is that one's).
   */
  private async deliverPost(post: SmppPost, held: Held, events: readonly SmppReceipt[]): Promise<void> {
    const outcomes = await Promise.all(
      events.map((e) =>
        // Asked for failures only: a delivered message's receipt is done without a deliver_sm.
        post.failures_only && e.event === 'delivered' && e.status === 'delivered'
          ? 'acknowledged'
          : this.deliverEvent(held, e),
      ),
    );
    const taken = held.state === 'taken';
    if (!taken) held.state = 'ending';
    const acknowledged = events.filter((_, i) => outcomes[i] === 'acknowledged').map((e) => e.event_id);
    // Every event left acknowledged (the usual case): the POST ends without a row per event, in one statement with
    // the others ending meanwhile (one ended by another process meanwhile is left as it is).
    if (acknowledged.length === events.length) {
      await this.ends.add(post.id);
      return;
    }
    const now = this.ctx.clock.now();
    if (acknowledged.length > 0 && (await callbackSmppAck(this.ctx.db, post.id, acknowledged, now))) return;
    if (taken) return;
    await this.renewal.catch(() => {});
    // A refusal (the client could not take it now) is tried again after a pause; a lost one (its bind closed, or
    // none is up) at once, by any bind of the account.
    const refused = outcomes.includes('refused');
    await callbackSmppRelease(
      this.ctx.db,
      new Map([[post.id, held.leaseUntil]]),
      refused ? new Date(now.getTime() + this.server.options.retryMs) : null,
    );
  }

  private async deliverEvent(held: Held, event: SmppReceipt): Promise<Outcome> {
    const accountId = held.accountId;
    const pdu = deliverSmOf(event);
    // An event that is no receipt nor MO (none is asked for): nothing to send, done.
    if (!pdu) return 'acknowledged';
    const kind = event.event === 'inbound_sent' ? 'mo' : event.event === 'sent' ? 'intermediate' : 'receipt';
    // The bind is chosen and its place taken (send registers the deliver_sm) in one turn: a POST's events all start
    // together, and each chose the same empty window before any had taken a place in it (60 sent into a window of 5).
    let cs: ClientSession | 'full' | undefined;
    let woken = false;
    for (;;) {
      // Another process took the POST (a renewal found it so) and delivers the rest; a place this event was woken
      // for goes to the next event waiting.
      if (held.state === 'taken') {
        if (woken) this.freeSlot(accountId);
        return 'lost';
      }
      this.slotLooks++;
      cs = this.server.leastBusyReceiver(accountId);
      if (cs !== 'full') break;
      await this.roomFor(accountId);
      woken = true;
    }
    if (!cs) return 'lost';
    const status = await this.send(cs, pdu);
    this.freeSlot(accountId);
    const outcome: Outcome = status === undefined ? 'lost' : status === 0 ? 'acknowledged' : 'refused';
    this.server.metrics.delivers.inc({ kind, outcome });
    return outcome;
  }

  /** One deliver_sm on the bind; resolves with the client's command_status, or undefined (no answer, closed). */
  private send(cs: ClientSession, pdu: smpp.PDU): Promise<number | undefined> {
    return new Promise((resolve) => {
      if (!cs.deliver(pdu, resolve)) resolve(undefined);
    });
  }

  /** Resolves when a place in one of the account's receiver windows may be free (an answer, a bind came or went). */
  private roomFor(accountId: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.slotWaiters.get(accountId);
      if (waiters) waiters.push(resolve);
      else this.slotWaiters.set(accountId, [resolve]);
    });
  }

  /** The account's POSTs in hand (delivering, or waiting for room in its windows). */
  postsHeld(accountId: number): number {
    return this.heldByAccount().get(accountId) ?? 0;
  }

  /** Events waiting for room in the account's windows. */
  waitingForRoom(accountId: number): number {
    return this.slotWaiters.get(accountId)?.length ?? 0;
  }

  /** A place in one of the account's windows is free again: the first event waiting for one looks. */
  private freeSlot(accountId: number): void {
    const waiters = this.slotWaiters.get(accountId);
    if (!waiters) return;
    const wake = waiters.shift()!;
    if (waiters.length === 0) this.slotWaiters.delete(accountId);
    wake();
  }

  /** Wakes every event of the account waiting for room: a bind of it opened or closed, each looks again. */
  freeSlots(accountId: number): void {
    const waiters = this.slotWaiters.get(accountId);
    this.slotWaiters.delete(accountId);
    for (const wake of waiters ?? []) wake();
  }
}

/**
 * The deliver_sm of an event: a receipt (esm_class 0x04), an intermediate notification of the hand-over to a carrier
 * (0x20, `stat:ENROUTE`, message_state 1) or an MO (0x00); undefined for any other event. A receipt,
 * one a message, is encoded directly (connectors' hot PDUs, checked byte for byte against the package's encoder in
 * test/smppServer/receiptPdu.test.ts): the package's generic encoder took a tenth of the SMPP run's CPU.
 */
export function deliverSmOf(e: SmppReceipt): smpp.PDU | undefined {
  const esmClass = RECEIPT_ESM_CLASS[e.event];
  if (esmClass !== undefined && e.status !== null && e.status in STAT) {
    // Plain ASCII (which GSM 03.38 shares but for a few signs), as SMSCs write receipts.
    const receipt = new ShortMessagePdu(
      'deliver_sm',
      receiptFields(
        { addr: e.message?.destination ?? '', ton: 0, npi: 0 },
        e.message?.sender_name ?? '',
        Buffer.from(receiptText(e), 'latin1'),
        esmClass,
      ),
      receiptTlvs(e.message_id, MESSAGE_STATE[e.status]!),
    );
    // What Session.send uses of a PDU (sequence number, isResponse, toBuffer).
    return receipt as unknown as smpp.PDU;
  }
  if (e.event === 'inbound_sent') {
    const text = typeof e.message?.content === 'string' ? e.message.content : '';
    const gsm = smpp.encodings.ASCII.match(text);
    const fits = gsm ? text.length <= 160 : text.length <= 70;
    return new smpp.PDU('deliver_sm', {
      source_addr: e.message?.destination ?? '',
      destination_addr: e.message?.sender_name ?? '',
      esm_class: 0x00,
      data_coding: gsm ? 0 : 8,
      ...(fits ? { short_message: { message: text } } : { message_payload: { message: text } }),
    });
  }
  return undefined;
}

/**
 * `id:<messageUuid> sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:<the
 * first 20 characters>` (SMPP 3.4 appendix B); err is Herald's error code (0 when none), at least 3 digits.
 */
export function receiptText(e: SmppReceipt): string {
  const delivered = e.status === 'delivered';
  const content = typeof e.message?.content === 'string' ? e.message.content : '';
  const text = content.slice(0, 20).replace(/[^\x20-\x7e]/g, '?');
  return (
    `id:${e.message_id} sub:001 dlvrd:${delivered ? '001' : '000'} ` +
    `submit date:${yymmddhhmm(e.message?.created_at ?? e.at)} done date:${yymmddhhmm(e.at)} ` +
    `stat:${STAT[e.status!]} err:${String(e.error_code ?? 0).padStart(3, '0')} text:${text}`
  );
}
