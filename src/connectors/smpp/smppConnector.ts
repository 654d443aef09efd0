import type { Logger } from 'pino';
import smpp from 'smpp';
import '../../shared/gsmCoderCache.js';
import { SMPP_DEFAULTS, type SmppConnectorConfig } from '../../config/configFile.js';
import type { CarrierReceipt } from '../connector.js';
import type { Connector, ConnectorState, OutboundMessage, ReceiptSink, SubmitOutcome } from '../connector.js';
import { Throttle } from '../throttle.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { DeliverSmResp, SubmitSm, type SubmitSmFields } from './hotPdus.js';
import { isTransientStatus, SMPP_STATUS, statusName, TRANSIENT_RETRY_MS } from './smppErrors.js';
import { type ReceiptIdForm, receiptId, submittedId } from './carrierIds.js';
import { MultipartReceipts } from './multipartReceipts.js';
import { SmscThrottling, THROTTLE_PAUSE_MIN_MS } from './smscThrottling.js';
import { ESM_MESSAGE_TYPE, parseReceipt, relativeTime, smsPdus, sourceAddress } from './smppMessage.js';
import {
  type PduResult,
  type SessionEvents,
  type SessionRole,
  type SessionState,
  type SmppLink,
  SmppSession,
} from './smppSession.js';

/** A subscriber's SMS as the SMSC delivered it. */
export interface SmsInbound {
  /** The subscriber's number (source_addr). */
  readonly from: string;
  /** The number or short code written to (destination_addr). */
  readonly to: string;
  readonly text: string;
  readonly at: Date;
}

/** Stores inbound SMS; resolves once they are committed (the SMSC's deliver_sm is answered then). */
export type SmsInboundSink = (connectorId: string, messages: readonly SmsInbound[]) => Promise<void>;

/** How long a submission may wait for a window slot before its message goes back to the queue. */
const MAX_QUEUE_WAIT_MS = 10_000;
/** Retry delay when the session is down: short, because another connector of the route may take it. */
const NOT_BOUND_RETRY_MS = 1000;
/** Inbound SMS kept in memory for the operator while no inbound storage takes them. */
const KEPT_INBOUND = 1000;
/** Refusals that mean "send slower": they pause the whole connector instead of failing the message. */
const SLOW_DOWN: ReadonlySet<number> = new Set([SMPP_STATUS.RTHROTTLED, SMPP_STATUS.RMSGQFUL]);

/** A connector's state is its best session's: bound if any transmitting session is. */
const STATE_RANK: Readonly<Record<SessionState, number>> = {
  stopped: 0,
  disconnected: 1,
  connecting: 2,
  binding: 3,
  bound: 4,
};

/**
 * SMS over SMPP 3.4 as an ESME with one or more binds (transceivers, or transmitters and receivers), sharing one
 * window and rate. The `smpp` package gives PDUs and sockets; {@link SmppSession} binds, keeps each link alive and
 * reconnects; this class adds the in-flight window and rate, GSM 03.38 / UCS-2 encoding with concatenation, and
 * receipts that are acknowledged only after they are recorded, whichever bind they arrive on.
 */
export class SmppConnector implements Connector {
  readonly type = 'smpp';
  readonly channel = 'SMS' as const;
  readonly id: string;
  private readonly sessions: SmppSession[];
  private readonly throttle: Throttle;
  private readonly throttling: SmscThrottling;
  private reference = Math.floor(Math.random() * 256);
  private submitted = 0;
  private nextSession = 0;
  private lastError: string | null = null;
  private readonly keptInbound: SmsInbound[] = [];
  private readonly receiptIds: ReceiptIdForm;
  private readonly multipart: MultipartReceipts;
  /** Resolved when a transmitting session is bound; tests and start-up wait on it. */
  private boundWaiters: (() => void)[] = [];

  constructor(
    private readonly config: SmppConnectorConfig,
    private readonly sink: ReceiptSink,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
    private readonly inbound?: SmsInboundSink,
  ) {
    this.id = config.id;
    this.throttle = new Throttle(config.window, config.mps);
    this.throttling = new SmscThrottling(this.throttle, clock);
    this.receiptIds = config.receiptIds ?? SMPP_DEFAULTS.receiptIds;
    this.multipart = new MultipartReceipts(clock, (receipts) =>
      this.sink(receipts).catch((error: unknown) =>
        this.log.error({ connector: this.id, err: error }, 'receipts of the other parts not recorded'),
      ),
    );
    const settings = { ...config, tls: config.tls ?? SMPP_DEFAULTS.tls };
    const count = config.sessions ?? SMPP_DEFAULTS.sessions;
    const roles: SessionRole[] =
      (config.bindMode ?? SMPP_DEFAULTS.bindMode) === 'transceiver'
        ? Array.from({ length: count }, () => 'transceiver')
        : Array.from({ length: count * 2 }, (_, i) => (i < count ? 'transmitter' : 'receiver'));
    const events: SessionEvents = {
      bound: (session) => {
        if (session.transmits) for (const waiter of this.boundWaiters.splice(0)) waiter();
      },
      unbound: () => undefined,
      message: (session, link, pdu) => this.onMessage(session, link, pdu),
      error: (session, message) => this.noteError(session, message),
    };
    this.sessions = roles.map((role, i) => new SmppSession(settings, role, i + 1, events, log, clock));
  }

  async start(): Promise<void> {
    this.throttle.reopen();
    for (const session of this.sessions) session.start();
  }

  release(): void {
    this.throttle.rejectAll();
    this.throttling.cancel();
  }

  /** Resolves when bound, or after `timeoutMs` with false. */
  waitBound(timeoutMs: number): Promise<boolean> {
    if (this.available()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(timeoutMs, () => resolve(false));
      this.boundWaiters.push(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }

  available(): boolean {
    return this.sessions.some((s) => s.transmits && s.state === 'bound');
  }

  /** Each bind's state, for tests and the operator's logs. */
  sessionStates(): { role: SessionRole; state: SessionState; liveTimers: number }[] {
    return this.sessions.map((s) => ({ role: s.role, state: s.state, liveTimers: s.liveTimers }));
  }

  state(): ConnectorState {
    const best = this.sessions
      .filter((s) => s.transmits)
      .reduce<SessionState>((state, s) => (STATE_RANK[s.state] > STATE_RANK[state] ? s.state : state), 'stopped');
    return {
      id: this.id,
      type: this.type,
      channel: this.channel,
      available: this.available(),
      state: best,
      inFlight: this.throttle.active,
      window: this.config.window,
      mps: this.config.mps,
      submitted: this.submitted,
      lastError: this.lastError,
    };
  }

  /** Unbinds every session politely, then closes; submissions in flight fail as transient. */
  async stop(): Promise<void> {
    this.throttle.rejectAll();
    this.throttling.cancel();
    this.multipart.clear();
    await Promise.all(this.sessions.map((s) => s.stop()));
  }

  /** The next bound transmitting session, in turn. */
  private pickSession(): SmppSession | undefined {
    for (let i = 0; i < this.sessions.length; i++) {
      const session = this.sessions[(this.nextSession + i) % this.sessions.length]!;
      if (session.transmits && session.state === 'bound') {
        this.nextSession = (this.nextSession + i + 1) % this.sessions.length;
        return session;
      }
    }
    return undefined;
  }

  async submit(message: OutboundMessage): Promise<SubmitOutcome> {
    const session = this.pickSession();
    if (!session) {
      return {
        kind: 'transient',
        retryAfterMs: NOT_BOUND_RETRY_MS,
        reason: `${this.id} is not bound (${this.state().state})`,
      };
    }
    const text = String(message.content);
    const parts = smsPdus(text, this.nextReference());
    const common = {
      ...sourceAddress(message.senderName),
      destination_addr: message.destination,
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      registered_delivery: 1,
      validity_period: message.ttlSeconds ? relativeTime(message.ttlSeconds) : '',
    };
    const deadline = this.throttling.now() + MAX_QUEUE_WAIT_MS;
    const results =
      parts.length === 1
        ? [await this.submitPart(session, { ...common, ...parts[0]! }, deadline)]
        : await Promise.all(parts.map((part) => this.submitPart(session, { ...common, ...part }, deadline)));

    const carrierIds: string[] = [];
    for (const result of results) {
      // No answer (connection lost, timeout): soon again, through this connector once it is back or another of the
      // route.
      if (result.kind === 'failed')
        return {
          kind: 'transient',
          retryAfterMs: Math.max(NOT_BOUND_RETRY_MS, this.throttling.pauseLeftMs),
          reason: result.reason,
        };
      if (result.status !== SMPP_STATUS.ROK) {
        const reason = `${this.id}: submit_sm refused with ${statusName(result.status)}`;
        if (SLOW_DOWN.has(result.status)) {
          // Still refused when the submission's time ran out: back to the queue until the pause ends.
          const retryAfterMs = Math.max(THROTTLE_PAUSE_MIN_MS, this.throttling.pauseLeftMs);
          return { kind: 'transient', retryAfterMs, reason, errorCode: result.status };
        }
        if (isTransientStatus(result.status)) {
          return { kind: 'transient', retryAfterMs: TRANSIENT_RETRY_MS, reason, errorCode: result.status };
        }
        return { kind: 'permanent', errorCode: result.status, reason };
      }
      carrierIds.push(submittedId(result.messageId, this.receiptIds));
    }
    this.multipart.remember(carrierIds);
    this.submitted++;
    return { kind: 'accepted', carrierIds };
  }

  /** The pause and rate after throttling refusals, for tests and the operator. */
  throttlingState(): { pausedForMs: number; steps: number; rate: number } {
    return this.throttling.snapshot();
  }

  private nextReference(): number {
    this.reference = (this.reference + 1) & 0xff;
    return this.reference;
  }

  /**
   * Sends one part, and sends it again (the same bytes, so the same concatenation reference) while the SMSC answers
   * that it is busy, after the pause that answer started, until `deadline`: only the refused part goes again.
   */
  private async submitPart(session: SmppSession, fields: SubmitSmFields, deadline: number): Promise<PduResult> {
    let refused: PduResult | undefined;
    for (;;) {
      if (!(await this.throttling.waitUnpaused(deadline))) {
        return refused ?? { kind: 'failed', reason: `${this.id}: the SMSC asked to slow down`, sent: false };
      }
      const current = session.state === 'bound' ? session : this.pickSession();
      if (!current) return { kind: 'failed', reason: `${this.id} is not bound`, sent: false };
      if (!this.throttle.tryAcquire() && !(await this.throttle.acquire(MAX_QUEUE_WAIT_MS))) {
        return { kind: 'failed', reason: `${this.id}: window busy`, sent: false };
      }
      const sent = this.throttling.sending();
      let result: PduResult;
      try {
        result = await current.request(new SubmitSm(fields));
      } finally {
        this.throttle.release();
      }
      if (result.kind === 'response' && SLOW_DOWN.has(result.status)) {
        this.throttling.refused(sent);
        refused = result;
        continue;
      }
      if (result.kind === 'response' && result.status === SMPP_STATUS.ROK) this.throttling.accepted();
      return result;
    }
  }

  private noteError(session: SmppSession, message: string): void {
    this.lastError = message;
    this.log.warn({ connector: this.id, session: session.number, error: message }, 'SMPP problem');
  }

  /**
   * A deliver_sm or data_sm: a final receipt is recorded first and acknowledged after (a failure to record asks the
   * SMSC to send it again); an intermediate notification or an SME acknowledgement is only acknowledged; anything
   * else is a mobile-originated SMS, handed to the inbound sink.
   */
  private onMessage(session: SmppSession, link: SmppLink, pdu: smpp.PDU): void {
    const kind = messageKind(Number(pdu.esm_class ?? 0));
    const text = pduText(pdu);
    const ack = (status = 0): unknown =>
      pdu.command === 'deliver_sm'
        ? new DeliverSmResp(pdu.sequence_number, status)
        : pdu.response(status ? { command_status: status } : {});
    if (kind === 'mobile-originated') {
      this.onMobileOriginated(session, link, pdu, text, ack);
      return;
    }
    const parsed =
      kind === 'receipt'
        ? parseReceipt({ receipted_message_id: pdu.receipted_message_id, message_state: pdu.message_state, text })
        : undefined;
    if (!parsed || parsed.stat === 'intermediate') {
      if (kind === 'receipt' && !parsed) {
        this.log.warn({ connector: this.id, text }, 'unreadable delivery receipt acknowledged');
      } else {
        this.log.debug({ connector: this.id, kind, text }, 'SMPP notification acknowledged');
      }
      session.respond(link, ack());
      return;
    }
    const receipt: CarrierReceipt = {
      connectorId: this.id,
      carrierId: receiptId(parsed.carrierId, this.receiptIds),
      state: parsed.stat,
      at: this.clock.now(),
      errorCode: parsed.errorCode,
    };
    this.multipart.received(receipt);
    this.sink([receipt]).then(
      () => session.respond(link, ack()),
      (error: unknown) => {
        this.log.error({ connector: this.id, err: error }, 'receipt not recorded; asking the SMSC to resend');
        session.respond(link, ack(SMPP_STATUS.RX_T_APPN));
      },
    );
  }

  /**
   * A subscriber's SMS. With an inbound sink it is acknowledged once stored (else the SMSC is asked to send it
   * again); without one it is logged in full, kept for the operator (the last {@link KEPT_INBOUND}) and acknowledged.
   */
  private onMobileOriginated(
    session: SmppSession,
    link: SmppLink,
    pdu: smpp.PDU,
    text: string,
    ack: (status?: number) => unknown,
  ): void {
    const message: SmsInbound = {
      from: String(pdu.source_addr ?? ''),
      to: String(pdu.destination_addr ?? ''),
      text,
      at: this.clock.now(),
    };
    if (!this.inbound) {
      this.log.warn({ connector: this.id, inbound: message }, 'inbound SMS kept in the log: no inbound SMS storage');
      this.keptInbound.push(message);
      if (this.keptInbound.length > KEPT_INBOUND) this.keptInbound.shift();
      session.respond(link, ack());
      return;
    }
    this.inbound(this.id, [message]).then(
      () => session.respond(link, ack()),
      (error: unknown) => {
        this.log.error({ connector: this.id, err: error }, 'inbound SMS not stored; asking the SMSC to resend');
        session.respond(link, ack(SMPP_STATUS.RX_T_APPN));
      },
    );
  }

  /** Inbound SMS received without an inbound sink, oldest first. */
  inboundKept(): readonly SmsInbound[] {
    return this.keptInbound;
  }
}

/** What a deliver_sm or data_sm is, by its esm_class message type (bits 2-5, SMPP 3.4, 5.2.12). */
function messageKind(esmClass: number): 'receipt' | 'intermediate' | 'acknowledgement' | 'mobile-originated' {
  switch (esmClass & ESM_MESSAGE_TYPE) {
    case 0x00:
      return 'mobile-originated';
    case 0x04:
      return 'receipt';
    case 0x20:
      return 'intermediate';
    default:
      // 0x08 SME delivery acknowledgement, 0x10 user acknowledgement, 0x18 conversation abort.
      return 'acknowledgement';
  }
}

/** The text of a deliver_sm (short_message) or data_sm (message_payload), as the package decoded it. */
function pduText(pdu: smpp.PDU): string {
  for (const field of [pdu.short_message, pdu.message_payload]) {
    if (field && !Buffer.isBuffer(field) && typeof (field as { message?: unknown }).message === 'string') {
      const message = (field as { message: string }).message;
      if (message !== '') return message;
    }
  }
  return '';
}
