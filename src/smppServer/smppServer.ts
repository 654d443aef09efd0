import smpp from 'smpp';
import '../shared/smppGsmCoderPatch.js';
import '../shared/smppHotDecode.js';
import './smppTimePatch.js';
import { type Principal, principalOfToken, tokenFindLive } from '../accounts/index.js';
import { secretMatches } from '../util/secrets.js';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { ClockTimer } from '../util/clock.js';
import { PendingAnswers } from '../util/pendingAnswers.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import { authChargeFirst, authGuard } from '../http/auth.js';
import { RateLimiter } from '../http/rateLimit.js';
import { corkUntilNextTick, moPartOf, ShortMessageResp, type Tlv } from '../connectors/index.js';
import { LoopFailures, type LoopStep } from '../shared/loop.js';
import { LongMessages, type PartLimits } from './longMessages.js';
import { ReceiptDelivery } from './receiptDelivery.js';
import { type SmppServerMetrics, smppServerMetrics } from './smppServerMetrics.js';
import { smppPasswordGet } from './smppPasswordSql.js';
import { SMPP_BIND_HEARTBEAT_MS, smppBindsLiveSince } from './smppBinds.js';
import { smppBindDelete, smppBindInsert, smppBindsTouch } from './smppBindSql.js';
import { ESME, failureOf, HERALD_ERROR_TLV, MESSAGE_STATE, refusalOf, type SmppRefusal } from './smppStatuses.js';
import { type CascadeStopper, FINAL_STATUSES, messageGet, messagesStop } from '../messages/index.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { moscowWallClock, smppTime } from './smppTime.js';
import { SubmitBatches } from './submitBatches.js';
import type { SmppReceipts } from '../sending/index.js';

smpp.addTLV('herald_error_code', { id: HERALD_ERROR_TLV, type: smpp.types.tlv.int32 });

export interface SmppServerOptions {
  readonly host: string;
  readonly port: number;
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  /** submit_sm per second per account (HERALD_SMPP_RATE_LIMIT; 0: none), bursts of twice as many. */
  readonly rateLimit: number;
  /** submit_sm a bind may have unanswered at once (HERALD_SMPP_WINDOW); more are refused ESME_RTHROTTLED. */
  readonly window: number;
  /**
   * deliver_sm sent to a bind and not yet answered, at once (Kannel answers as fast as its store writes): the bind's
   * window, at least {@link LEAST_DELIVER_WINDOW} (receiptLimitsFor).
   */
  readonly deliverWindow: number;
  /** Parts of long messages a bind keeps while waiting for the rest, and for how long. */
  readonly parts: PartLimits;
  /** How long a process holds the receipts it delivers before another may take them (it died). */
  readonly leaseMs: number;
  /** How often receipts are looked for while a receiver bind is up. */
  readonly pollMs: number;
  /**
   * Receipt POSTs (the callback outbox's batches for the binds) a process delivers at once, and of them one account's
   * at most: the POSTs of an account whose client answers slowly, or not at all, wait for its windows and hold their
   * places meanwhile; held to its share, they never keep another account's receipts from the binds.
   */
  readonly receiptPosts: { readonly process: number; readonly account: number };
  /** A deliver_sm not answered within this counts as not delivered (sent again later). */
  readonly deliverTimeoutMs: number;
  /** A receipt the client refused (a deliver_sm_resp with an error) is tried again after this. */
  readonly retryMs: number;
  /** On shutdown, how long each bind's unbind_resp is waited for before the socket is closed. */
  readonly unbindWaitMs: number;
}

/** deliver_sm a bind may have unanswered however narrow its window (the default window's). */
const LEAST_DELIVER_WINDOW = 100;
/** An account's receipt POSTs in hand for each 100 places of a bind's window. */
const POSTS_A_HUNDRED_PLACES = 16;
/** A process's places for receipt POSTs, in accounts' shares: one account never holds more than its share. */
const SHARES_A_PROCESS = 4;
/**
 * The window past which an account's POSTs grow no more (160 POSTs, some 16,000 receipts in hand): HERALD_SMPP_WINDOW
 * goes up to 10,000, and a POST in hand keeps its events in memory until its client has answered them all.
 */
const POSTS_WINDOW_CAP = 1000;

export const DEFAULT_SMPP_SERVER_OPTIONS: Omit<
  SmppServerOptions,
  'host' | 'port' | 'tls' | 'leaseMs' | 'rateLimit' | 'window'
> = {
  deliverWindow: LEAST_DELIVER_WINDOW,
  // 1000 parts is some 150 KB of text a bind; a minute is what SMSCs give a long message's parts (Kannel: 30 s).
  parts: { maxParts: 1000, timeoutMs: 60_000 },
  pollMs: 500,
  // A POST carries what a forming round found (a dozen events under a steady load, up to 100 in a burst): an
  // account's 16 are some 200 receipts in hand, at most 1,600 (two to sixteen windows of 100).
  receiptPosts: { process: POSTS_A_HUNDRED_PLACES * SHARES_A_PROCESS, account: POSTS_A_HUNDRED_PLACES },
  deliverTimeoutMs: 30_000,
  retryMs: 5_000,
  unbindWaitMs: 2_000,
};

/**
 * The receipts' side of a bind's window (HERALD_SMPP_WINDOW): a bind may have as many deliver_sm unanswered as it may
 * have submit_sm (at least {@link LEAST_DELIVER_WINDOW}), and an account as many receipt POSTs in hand as keep such
 * windows full (16 for each 100 places, up to a window of {@link POSTS_WINDOW_CAP}), a process four accounts' worth.
 * With the receipts held to 100 a bind and 16 POSTs an account while the binds took 1000 submit_sm each, the receipts
 * fell seconds behind the submits (docs/smpp-server.md).
 */
export function receiptLimitsFor(window: number): Pick<SmppServerOptions, 'deliverWindow' | 'receiptPosts'> {
  const deliverWindow = Math.max(LEAST_DELIVER_WINDOW, window);
  const postsAnAccount = Math.ceil((POSTS_A_HUNDRED_PLACES * Math.min(deliverWindow, POSTS_WINDOW_CAP)) / 100);
  return {
    deliverWindow,
    receiptPosts: { process: postsAnAccount * SHARES_A_PROCESS, account: postsAnAccount },
  };
}

export type BindType = 'transmitter' | 'receiver' | 'transceiver';

const BIND_TYPES: Record<string, BindType> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/**
 * A key id is 15 characters (`t1_` and 12, accounts/tokens.ts), within SMPP 3.4's 16; longer ids are looked up too
 * (up to the longest a key id may be), so that a client sending a longer one gets ESME_RINVSYSID, not a cut.
 */
const SYSTEM_ID_MAX = 64;

/** A connection of a client, bound or not. */
export class ClientSession {
  bind: { id: string; principal: Principal; systemId: string; type: BindType; since: Date } | undefined;
  binding = false;
  submitsOutstanding = 0;
  /**
   * deliver_sm sent and not answered, by sequence number: each gets the client's command_status, or undefined when
   * none comes within `deliverTimeoutMs` or the bind closes first.
   */
  readonly delivers: PendingAnswers<number, number | undefined>;
  readonly parts: LongMessages<smpp.PDU>;
  closed = false;
  unbound: (() => void) | undefined;

  constructor(
    readonly session: smpp.Session,
    readonly address: string,
    server: SmppServer,
  ) {
    this.parts = new LongMessages(server.ctx.clock, server.options.parts, (pdus) => server.refuseParts(this, pdus));
    this.delivers = new PendingAnswers<number, number | undefined>(
      server.ctx.clock,
      server.options.deliverTimeoutMs,
      undefined,
    );
  }

  /** Sends a deliver_sm; `answered` gets its answer (see {@link delivers}). False when it could not be sent. */
  deliver(pdu: smpp.PDU, answered: (status: number | undefined) => void): boolean {
    if (!this.send(pdu)) return false;
    this.delivers.add(pdu.sequence_number, answered);
    return true;
  }

  get receives(): boolean {
    return this.bind !== undefined && this.bind.type !== 'transmitter' && !this.closed;
  }

  /** Sends on the bind; what is sent in one turn leaves in one write (a window's answers, a POST's receipts). */
  send(pdu: smpp.PDU): boolean {
    if (this.closed) return false;
    corkUntilNextTick(this.session.socket);
    return this.session.send(pdu);
  }
}

/**
 * Herald's SMPP 3.4 server for clients (DESIGN 22, docs/smpp-server.md): binds authenticated by traffic tokens,
 * submit_sm through the HTTP send path (sendMessages: one code path), long messages joined, and receipts and MO as
 * deliver_sm from the callback outbox (ReceiptDelivery). Runs in the api and all roles.
 */
export class SmppServer {
  private server: smpp.Server | undefined;
  private readonly sessions = new Set<ClientSession>();
  private heartbeat: ClockTimer | undefined;
  /** Rows of closed binds being deleted (a stop waits for them). */
  private readonly forgetting = new Set<Promise<void>>();
  readonly metrics: SmppServerMetrics;
  /** The receipts and MO of the binds (public for tests, which count its looks for room). */
  readonly receipts: ReceiptDelivery;
  /** submit_sm go to the HTTP send's function in batches (submitBatches.ts). */
  private readonly batches: SubmitBatches;
  /**
   * The failures of the clients' requests, each answered (send again, or system error) but a database outage logged
   * once for all of them, not once a PDU of every bind.
   */
  private readonly requests: { bind: LoopStep; query_sm: LoopStep; cancel_sm: LoopStep };
  private readonly rate: RateLimiter;
  /** Stops hearing the workers' 'receipts' wake-ups. */
  private unlisten: (() => Promise<void>) | undefined;
  port = 0;

  constructor(
    readonly ctx: AppContext,
    readonly options: SmppServerOptions,
    private readonly stopper: CascadeStopper,
  ) {
    this.metrics = smppServerMetrics(ctx, () => this.bound());
    this.receipts = new ReceiptDelivery(this, ctx);
    const failures = new LoopFailures(ctx.log, ctx.clock);
    this.requests = {
      bind: failures.step('SMPP bind failed'),
      query_sm: failures.step('SMPP query_sm failed'),
      cancel_sm: failures.step('SMPP cancel_sm failed'),
    };
    this.batches = new SubmitBatches(ctx, failures.step('SMPP batch not stored: database unavailable or conflict'));
    this.rate = new RateLimiter(options.rateLimit, options.rateLimit * 2);
    const { process: places, account } = options.receiptPosts;
    if (!(Number.isInteger(places) && Number.isInteger(account) && account >= 1 && places >= account))
      throw new RangeError(`receiptPosts: ${places} places, ${account} an account (1 <= account <= process)`);
  }

  async start(): Promise<number> {
    const tls = this.options.tls;
    const server = smpp.createServer(tls ? { cert: tls.cert, key: tls.key } : {}, (session) => this.onSession(session));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : this.options.port;
    this.receipts.start();
    // The workers form the binds' receipts (callbackPostsForm) and say so at once: no wait for the next poll.
    this.unlisten = await this.ctx.db.listenWakeups({
      onWake: (topic) => {
        if (topic === 'receipts') this.receipts.poke();
      },
      onListening: () => this.receipts.poke(),
      onLost: (error) =>
        this.ctx.log.warn({ err: error }, 'the SMPP server lost its wake-up listener; connecting again'),
    });
    this.beat();
    return this.port;
  }

  /**
   * Graceful shutdown: no new connections, each bind is sent unbind and given `unbindWaitMs` for its unbind_resp,
   * then every socket is closed; receipts in flight are given back for another process or the next start.
   */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    this.heartbeat?.cancel();
    this.heartbeat = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await this.unlisten?.();
    this.unlisten = undefined;
    await this.receipts.stop();
    // Submits being stored are answered before their binds are unbound.
    await this.batches.drain();
    await Promise.all(
      [...this.sessions].map(async (cs) => {
        if (cs.bind && !cs.closed) {
          await new Promise<void>((resolve) => {
            const timer = this.ctx.clock.setTimer(this.options.unbindWaitMs, resolve);
            cs.unbound = () => {
              timer.cancel();
              resolve();
            };
            cs.session.send(new smpp.PDU('unbind', {}));
          });
        }
        cs.session.destroy();
      }),
    );
    await this.receipts.drain();
    await Promise.all([...this.forgetting]);
    await closed;
  }

  /** Refreshes this process's binds' rows (seen, window use) every {@link SMPP_BIND_HEARTBEAT_MS}. */
  private beat(): void {
    this.heartbeat = this.ctx.clock.setTimer(SMPP_BIND_HEARTBEAT_MS, () => {
      const now = this.ctx.clock.now();
      const binds = this.bound().map((cs) => ({
        id: cs.bind!.id,
        submits: cs.submitsOutstanding,
        delivers: cs.delivers.size,
      }));
      smppBindsTouch(this.ctx.db, binds, now, smppBindsLiveSince(now))
        .catch((error: unknown) => this.ctx.log.warn({ err: error }, 'SMPP binds not refreshed'))
        .finally(() => {
          if (this.server) this.beat();
        });
    });
  }

  /** Bound sessions, open. */
  bound(): ClientSession[] {
    return [...this.sessions].filter((cs) => cs.bind !== undefined && !cs.closed);
  }

  /**
   * The account's receiver or transceiver bind with the fewest deliver_sm unanswered, if it has room in its window;
   * `full` when the account has such binds and none has room, undefined when it has none. Asked once a receipt: a
   * loop, where filtering and sorting the binds made four arrays each time (a tenth of the SMPP run's garbage).
   */
  leastBusyReceiver(accountId: number): ClientSession | 'full' | undefined {
    let best: ClientSession | undefined;
    let any = false;
    for (const cs of this.sessions) {
      if (!cs.receives || cs.bind!.principal.accountId !== accountId) continue;
      any = true;
      if (cs.delivers.size < this.options.deliverWindow && (!best || cs.delivers.size < best.delivers.size)) best = cs;
    }
    return best ?? (any ? 'full' : undefined);
  }

  private onSession(session: smpp.Session): void {
    const socket = session.socket;
    const cs = new ClientSession(session, `${socket.remoteAddress ?? ''}:${socket.remotePort ?? ''}`, this);
    this.sessions.add(cs);
    session.on('error', () => session.destroy());
    session.on('close', () => this.onClose(cs));
    session.on('pdu', (pdu: smpp.PDU) => this.onPdu(cs, pdu));
  }

  private onClose(cs: ClientSession): void {
    cs.closed = true;
    this.sessions.delete(cs);
    cs.parts.clear();
    cs.delivers.settleAll(undefined);
    cs.unbound?.();
    if (cs.bind) {
      // The account's receipts waiting for room look again: at another bind, or lost when none is left.
      this.receipts.freeSlots(cs.bind.principal.accountId);
      const forgotten: Promise<void> = smppBindDelete(this.ctx.db, cs.bind.id)
        .catch((error: unknown) => this.ctx.log.warn({ err: error }, 'SMPP bind row not deleted'))
        .finally(() => this.forgetting.delete(forgotten));
      this.forgetting.add(forgotten);
    }
  }

  private onPdu(cs: ClientSession, pdu: smpp.PDU): void {
    const command = pdu.command;
    if (command in BIND_TYPES) {
      void this.onBind(cs, pdu, BIND_TYPES[command]!);
      return;
    }
    switch (command) {
      case 'enquire_link':
        cs.send(pdu.response());
        return;
      case 'unbind':
        cs.send(pdu.response());
        cs.session.close();
        return;
      case 'unbind_resp':
        cs.unbound?.();
        return;
      case 'submit_sm':
        if (!cs.bind || cs.bind.type === 'receiver') {
          cs.send(pdu.response({ command_status: ESME.RINVBNDSTS }));
          return;
        }
        this.onSubmit(cs, pdu);
        return;
      case 'query_sm':
      case 'cancel_sm':
        if (!cs.bind || cs.bind.type === 'receiver') {
          cs.send(pdu.response({ command_status: ESME.RINVBNDSTS }));
          return;
        }
        void this.onLookup(cs, pdu);
        return;
      case 'deliver_sm_resp':
      case 'generic_nack': {
        cs.delivers.settle(
          pdu.sequence_number,
          command === 'generic_nack' ? pdu.command_status || ESME.RINVCMDID : pdu.command_status,
        );
        return;
      }
      default:
        if (pdu.isResponse()) return;
        // A request this server does not take (data_sm, replace_sm, submit_multi) or one SMPP 3.4 does not define.
        cs.send(new smpp.PDU('generic_nack', { sequence_number: pdu.sequence_number, command_status: ESME.RINVCMDID }));
    }
  }

  private async onBind(cs: ClientSession, pdu: smpp.PDU, type: BindType): Promise<void> {
    const refuse = (status: number, outcome: string): void => {
      this.metrics.binds.inc({ outcome });
      cs.send(pdu.response({ command_status: status }));
    };
    if (cs.bind || cs.binding) {
      refuse(ESME.RALYBND, 'already_bound');
      return;
    }
    cs.binding = true;
    try {
      // The limits on failed attempts of every way in (http/auth.ts): too many from the address -> ESME_RBINDFAIL.
      const client = { ip: cs.session.socket.remoteAddress ?? '' };
      const failed = authGuard(this.ctx.limits, client);
      const systemId = String(pdu.system_id ?? '');
      const password = String(pdu.password ?? '');
      const token =
        systemId.length > 0 && systemId.length <= SYSTEM_ID_MAX
          ? await tokenFindLive(this.ctx.db, systemId, this.ctx.clock.now())
          : undefined;
      if (!token || token.type !== 'traffic') {
        failed(herald('badCredentials'));
        refuse(ESME.RINVSYSID, 'bad_system_id');
        return;
      }
      // Charged before the check (an SMPP password costs a scrypt: the cost is the attack), given back when right.
      const attempt = authChargeFirst(this.ctx.limits, client);
      if (!(await this.passwordMatches(token.id, Buffer.from(token.secret_hash), password))) {
        refuse(ESME.RINVPASWD, 'bad_password');
        return;
      }
      attempt.refund();
      if (token.account_status !== 'active') {
        refuse(ESME.RBINDFAIL, 'account_blocked');
        return;
      }
      if (cs.closed) return;
      // Counted over every api process, in the statement that records the bind (smppBindSql.ts).
      const now = this.ctx.clock.now();
      const id = randomUUID();
      const recorded = await smppBindInsert(
        this.ctx.db,
        {
          id,
          accountId: token.account_id,
          systemId,
          address: cs.address,
          bindType: type,
          now,
          windowSize: this.options.window,
        },
        token.account_smpp_binds,
        smppBindsLiveSince(now),
      );
      // Its last statement: the bind's database work all answered.
      this.requests.bind.succeeded();
      if (!recorded) {
        refuse(ESME.RBINDFAIL, 'too_many_binds');
        return;
      }
      cs.bind = { id, principal: principalOfToken(token), systemId, type, since: now };
      if (cs.closed) {
        // It closed while its row was written: the row goes too.
        this.onClose(cs);
        return;
      }
      this.metrics.binds.inc({ outcome: 'bound' });
      cs.send(pdu.response({ system_id: 'herald' }));
      if (cs.receives) {
        // Its window is room for the account's receipts that wait for one, and for more.
        this.receipts.freeSlots(cs.bind.principal.accountId);
        this.receipts.poke();
      }
    } catch (error) {
      if (error instanceof HeraldError && error.errorName === 'tooManyRequests') {
        refuse(ESME.RBINDFAIL, 'auth_failures');
        return;
      }
      this.requests.bind.failed(error);
      refuse(ESME.RSYSERR, 'error');
    } finally {
      cs.binding = false;
    }
  }

  /**
   * The 8-character SMPP password issued for the token (scrypt, as web passwords), or the token's whole secret
   * (SHA-256, as the HTTP API checks it) for clients that take long passwords.
   */
  private async passwordMatches(tokenId: string, secretHash: Buffer, password: string): Promise<boolean> {
    if (password.length === 0) return false;
    if (password.length > 8) return secretMatches(password, secretHash);
    const issued = await smppPasswordGet(this.ctx.db, tokenId);
    return this.ctx.passwords.verify(password, issued?.password_hash);
  }

  /**
   * Why a request of the bind (submit_sm, query_sm, cancel_sm) is answered ESME_RTHROTTLED before any work: its
   * window is full, or the account is past its rate; undefined when it may go (and then counted against the rate).
   */
  private throttled(cs: ClientSession): 'window full' | 'rate limited' | undefined {
    if (cs.submitsOutstanding >= this.options.window) return 'window full';
    if (this.rate.take(`account:${cs.bind!.principal.accountId}`) > 0) {
      this.ctx.limits.metrics.rateLimited.inc({ kind: 'smpp' });
      return 'rate limited';
    }
    return undefined;
  }

  private onSubmit(cs: ClientSession, pdu: smpp.PDU): void {
    const held = this.throttled(cs);
    if (held) {
      this.answer(cs, [pdu], { status: ESME.RTHROTTLED, heraldCode: 4290, message: held });
      return;
    }
    const dataCoding = Number(pdu.data_coding ?? 0);
    if (![0, 1, 3, 8].includes(dataCoding)) {
      this.answer(cs, [pdu], { status: ESME.RINVDCS, heraldCode: 4220, message: `data_coding ${dataCoding}` });
      return;
    }
    cs.submitsOutstanding++;
    const { text, udh } = textOf(pdu);
    const part = moPartOf(udh, pdu as unknown as Record<string, unknown>);
    if (!part || part.total <= 1) {
      void this.submitWhole(cs, [pdu], text);
      return;
    }
    if (part.sequence < 1 || part.sequence > part.total) {
      cs.submitsOutstanding--;
      this.answer(cs, [pdu], { status: ESME.RINVMSGLEN, heraldCode: 4220, message: 'part number out of range' });
      return;
    }
    const key = [String(pdu.source_addr), String(pdu.destination_addr), part.reference, part.total].join('\u0000');
    const added = cs.parts.add(key, part, text, pdu);
    if (added === 'waiting') return;
    if (added === 'full' || added === 'duplicate') {
      cs.submitsOutstanding--;
      const refusal: SmppRefusal =
        added === 'full'
          ? { status: ESME.RTHROTTLED, heraldCode: 4290, message: 'too many parts waiting' }
          : { status: ESME.RSUBMITFAIL, heraldCode: 4220, message: 'part sent twice' };
      this.answer(cs, [pdu], refusal);
      return;
    }
    void this.submitWhole(cs, added.items, added.text);
  }

  /**
   * query_sm (the message's state) and cancel_sm (POST /api/v1/message/stop's function: stopped while it waits in
   * the queue), by the messageUuid in message_id, within the account of the bind. Each takes a place in the bind's
   * window and a request of the account's rate, as a submit_sm does: its cost is bounded before it is paid.
   */
  private async onLookup(cs: ClientSession, pdu: smpp.PDU): Promise<void> {
    const accountId = cs.bind!.principal.accountId;
    const fail = pdu.command === 'query_sm' ? ESME.RQUERYFAIL : ESME.RCANCELFAIL;
    if (this.throttled(cs)) {
      cs.send(pdu.response({ command_status: ESME.RTHROTTLED }));
      return;
    }
    const id = String(pdu.message_id ?? '').toLowerCase();
    // An empty message_id (cancel every message from source_addr to destination_addr) is not taken.
    if (!UUID_PATTERN.test(id)) {
      cs.send(pdu.response({ command_status: ESME.RINVMSGID }));
      return;
    }
    cs.submitsOutstanding++;
    try {
      if (pdu.command === 'cancel_sm') {
        const [item] = await messagesStop(this.ctx, this.stopper, accountId, [id]);
        this.requests.cancel_sm.succeeded();
        cs.send(pdu.response({ command_status: item!.code === 200 ? ESME.ROK : fail }));
        return;
      }
      const message = await messageGet(this.ctx.db, accountId, id);
      this.requests.query_sm.succeeded();
      const state = message && message.direction === 'outbound' ? MESSAGE_STATE[message.status] : undefined;
      if (!message || state === undefined) {
        cs.send(pdu.response({ command_status: fail }));
        return;
      }
      cs.send(
        pdu.response({
          message_id: id,
          final_date: FINAL_STATUSES.has(message.status) ? message.status_at : '',
          message_state: state,
          error_code: 0,
        }),
      );
    } catch (error) {
      this.requests[pdu.command === 'cancel_sm' ? 'cancel_sm' : 'query_sm'].failed(error);
      cs.send(pdu.response({ command_status: ESME.RSYSERR }));
    } finally {
      cs.submitsOutstanding--;
    }
  }

  /** Parts whose message did not complete in time: each is refused (the client may send the message again). */
  refuseParts(cs: ClientSession, pdus: smpp.PDU[]): void {
    cs.submitsOutstanding -= pdus.length;
    this.answer(cs, pdus, { status: ESME.RSUBMITFAIL, heraldCode: 4220, message: 'missing parts' });
  }

  /**
   * A whole message (one submit_sm, or the parts of a long one, first part's fields) through the HTTP API's send:
   * the same request body and the same function. Every PDU is answered with its messageUuid or its refusal.
   */
  private async submitWhole(cs: ClientSession, pdus: smpp.PDU[], text: string): Promise<void> {
    const first = pdus[0]!;
    const now = this.ctx.clock.now();
    try {
      const message = messageOf(first, text, now);
      if (message instanceof Refused) {
        this.answer(cs, pdus, message.refusal);
        return;
      }
      const result = await this.batches.submit(cs.bind!.principal, message, receiptsOf(first));
      if ('item' in result) {
        const item = result.item;
        if ('messageUuid' in item) {
          this.metrics.submits.inc({ outcome: 'accepted' });
          // Encoded directly, as the connectors' submit_sm_resp (the package's encoder walks every field).
          for (const pdu of pdus)
            cs.send(
              new ShortMessageResp('submit_sm_resp', pdu.sequence_number, 0, item.messageUuid) as unknown as smpp.PDU,
            );
        } else this.answer(cs, pdus, refusalOf(item));
      } else if (result.error instanceof HeraldError) {
        this.answer(cs, pdus, refusalOf(result.error));
      } else {
        // Logged by SubmitBatches, once a batch.
        this.answer(cs, pdus, failureOf(result.error));
      }
    } finally {
      cs.submitsOutstanding -= pdus.length;
    }
  }

  /**
   * Refuses submit_sm with a status and, in the vendor TLV {@link HERALD_ERROR_TLV}, Herald's code after an empty
   * message_id (the package writes no body for an error status, so the answer is encoded directly).
   */
  private answer(cs: ClientSession, pdus: smpp.PDU[], refusal: SmppRefusal): void {
    this.metrics.submits.inc({ outcome: outcomeName(refusal.status) });
    for (const pdu of pdus) {
      cs.send(
        new ShortMessageResp('submit_sm_resp', pdu.sequence_number, refusal.status, '', [
          heraldErrorTlv(refusal.heraldCode),
        ]) as unknown as smpp.PDU,
      );
    }
  }
}

/**
 * The receipts a submit_sm asks for by its registered_delivery (SMPP 3.4 5.2.17): bits 0-1 the final one (1 every
 * outcome, 2 only a failure, 0 none; 3, reserved, is taken as 1), bit 4 an intermediate one when the message is
 * handed to a carrier; null when none.
 */
export function receiptsOf(pdu: smpp.PDU): SmppReceipts | null {
  const flags = Number(pdu.registered_delivery ?? 0);
  const bits = flags & 0x03;
  const intermediate = (flags & 0x10) !== 0;
  if (bits === 0 && !intermediate) return null;
  return { final: bits === 0 ? null : bits === 2 ? 'failures' : 'all', intermediate };
}

/** A metric label for a submit_sm status. */
function outcomeName(status: number): string {
  const name = Object.entries(ESME).find(([, value]) => value === status)?.[0];
  return name ? `ESME_${name}` : `0x${status.toString(16)}`;
}

/** The text of a submit_sm (message_payload when given, else short_message) as the package decoded it, and its UDH. */
function textOf(pdu: smpp.PDU): { text: string; udh: Buffer[] | undefined } {
  for (const field of [pdu.message_payload, pdu.short_message]) {
    if (field === undefined || field === null) continue;
    if (Buffer.isBuffer(field)) {
      if (field.length > 0) return { text: field.toString('latin1'), udh: undefined };
      continue;
    }
    const decoded = field as { message?: unknown; udh?: Buffer[] };
    const message = typeof decoded.message === 'string' ? decoded.message : '';
    if (message !== '' || (decoded.udh && decoded.udh.length > 0)) return { text: message, udh: decoded.udh };
  }
  return { text: '', udh: undefined };
}

/**
 * The message object of POST /api/v1/message a submit_sm stands for: channel SMS, source_addr the sender name,
 * destination_addr the destination, validity_period the ttl, schedule_delivery_time the localSendTime (Moscow wall
 * clock, useLocalTime false), service_type the trafficType. A time field that is no SMPP time is refused here.
 */
function messageOf(pdu: smpp.PDU, text: string, now: Date): Record<string, unknown> | Refused {
  const message: Record<string, unknown> = {
    channelType: 'SMS',
    senderName: String(pdu.source_addr ?? ''),
    destination: String(pdu.destination_addr ?? ''),
    content: text,
  };
  const validity = smppTime(pdu.validity_period, now);
  if (validity === 'invalid')
    return new Refused({ status: ESME.RINVEXPIRY, heraldCode: 4220, message: 'validity_period' });
  if (validity) message.ttl = Math.round((validity.getTime() - now.getTime()) / 1000);
  const scheduled = smppTime(pdu.schedule_delivery_time, now);
  if (scheduled === 'invalid') {
    return new Refused({ status: ESME.RINVSCHED, heraldCode: 4220, message: 'schedule_delivery_time' });
  }
  if (scheduled && scheduled.getTime() > now.getTime()) message.localSendTime = moscowWallClock(scheduled);
  const serviceType = String(pdu.service_type ?? '').trim();
  if (serviceType !== '') message.trafficType = serviceType.toUpperCase();
  return message;
}

/** A submit_sm refused before it is a message. */
class Refused {
  constructor(readonly refusal: SmppRefusal) {}
}

/** The vendor TLV {@link HERALD_ERROR_TLV}: Herald's code of a refusal, a 4-octet integer. */
function heraldErrorTlv(code: number): Tlv {
  const value = Buffer.alloc(4);
  value.writeInt32BE(code);
  return { tag: HERALD_ERROR_TLV, value };
}
