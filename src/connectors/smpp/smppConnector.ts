import type { Logger } from 'pino';
import '../../shared/smppGsmCoderPatch.js';
import '../../shared/smppHotDecode.js';
import { DEFAULT_URGENT_PERCENT, SMPP_DEFAULTS, type SmppConnectorConfig } from '../connectorConfig.js';
import type { Connector, ConnectorState, OutboundMessage, ReceiptSink, SubmitOutcome } from '../connector.js';
import { Throttle } from '../throttle.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { SubmitSm, type SubmitSmFields, type Tlv } from './hotPdus.js';
import { isTransientStatus, SMPP_STATUS, statusName, TRANSIENT_RETRY_MS } from './smppErrors.js';
import { type ReceiptIdForm, submittedId } from './carrierIds.js';
import { SmppDeliveries, type SmsInbound, type SmsInboundSink } from './smppDeliveries.js';
import { SmscThrottling, THROTTLE_PAUSE_MIN_MS } from './smscThrottling.js';
import { partialSends } from './partialSends.js';
import { joinSmscAccount, type SiblingConnectors } from './siblingConnectors.js';
import { relativeTime, smsPdus, sourceAddress, type SubmitPart, type TextEncoding } from './smppMessage.js';
import { type PduResult, type SessionEvents, type SessionRole, type SessionState, SmppSession } from './smppSession.js';

/** How long a submission may wait for a window slot before its message goes back to the queue. */
const MAX_QUEUE_WAIT_MS = 10_000;
/** Retry delay when the session is down: short, because another connector of the route may take it. */
const NOT_BOUND_RETRY_MS = 1000;
/** Refusals that mean "send slower": they pause the whole connector instead of failing the message. */
const SLOW_DOWN: ReadonlySet<number> = new Set([SMPP_STATUS.RTHROTTLED, SMPP_STATUS.RMSGQFUL]);

/** How long accepted parts are remembered for a message without a lifetime (ttlSeconds 0): three days. */
const PARTIAL_SEND_DEFAULT_TTL_MS = 3 * 86_400_000;

const partialSendTtlMs = (message: OutboundMessage): number =>
  message.ttlSeconds > 0 ? message.ttlSeconds * 1000 : PARTIAL_SEND_DEFAULT_TTL_MS;

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
  private reference = Math.floor(Math.random() * 65_536);
  private submitted = 0;
  private nextSession = 0;
  private lastError: string | null = null;
  /** When lastError happened: the console shows it beside the words. */
  private lastErrorAt: Date | null = null;
  private readonly receiptIds: ReceiptIdForm;
  private readonly encoding: TextEncoding;
  private readonly deliveries: SmppDeliveries;
  private readonly siblings: SiblingConnectors;
  /** Resolved when a transmitting session is bound; tests and start-up wait on it. */
  private boundWaiters: (() => void)[] = [];

  constructor(
    private readonly config: SmppConnectorConfig,
    sink: ReceiptSink,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
    inbound?: SmsInboundSink,
  ) {
    this.id = config.id;
    this.throttle = new Throttle(
      config.window,
      config.mps,
      systemClock,
      config.urgentPercent ?? DEFAULT_URGENT_PERCENT,
    );
    this.throttling = new SmscThrottling(this.throttle, clock);
    this.receiptIds = config.receiptIds ?? SMPP_DEFAULTS.receiptIds;
    this.encoding = {
      dataCoding: config.dataCoding ?? SMPP_DEFAULTS.dataCoding,
      ucs2: config.ucs2 ?? SMPP_DEFAULTS.ucs2,
      longMessages: config.longMessages ?? SMPP_DEFAULTS.longMessages,
    };
    this.siblings = joinSmscAccount(config, config.id);
    this.deliveries = new SmppDeliveries(config.id, this.receiptIds, sink, inbound, log, clock, this.siblings);
    const settings = Object.assign({}, config, { tls: config.tls ?? SMPP_DEFAULTS.tls });
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
      message: (session, link, pdu) => this.deliveries.take(session, link, pdu),
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
    const throttling = this.throttling.shown();
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
      lastErrorAt: this.lastErrorAt,
      throttled: throttling.refusals,
      pausedUntil: throttling.pausedUntil,
    };
  }

  /** Unbinds every session politely, then closes; submissions in flight fail as transient. */
  async stop(): Promise<void> {
    this.throttle.rejectAll();
    this.throttling.cancel();
    this.deliveries.stop();
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
    const text = String(message.content);
    const now = this.throttling.now();
    const earlier = partialSends.find(message.id, text, now);
    if (earlier && earlier.connectorId !== this.id) {
      // Its SMSC holds the accepted parts; another would deliver them twice.
      return {
        kind: 'transient',
        retryAfterMs: NOT_BOUND_RETRY_MS,
        reason: `${this.id}: parts of this message were accepted through ${earlier.connectorId}`,
      };
    }
    const session = this.pickSession();
    if (!session) {
      return {
        kind: 'transient',
        retryAfterMs: NOT_BOUND_RETRY_MS,
        reason: `${this.id} is not bound (${this.state().state})`,
      };
    }
    const parts = earlier?.parts ?? smsPdus(text, this.nextReference(), this.encoding);
    if (!parts) {
      return {
        kind: 'permanent',
        errorCode: SMPP_STATUS.RSUBMITFAIL,
        reason: `${this.id}: the text needs UCS-2, which this connector does not send (ucs2: false)`,
      };
    }
    // Every field named, in ShortMessageFields' order: a literal that spreads `common` in was 9 us a message in a
    // CPU profile (see eslint.config.js on spreads).
    const source = sourceAddress(message.senderName, this.config);
    const destTon = this.config.destTon ?? SMPP_DEFAULTS.destTon;
    const destNpi = this.config.destNpi ?? SMPP_DEFAULTS.destNpi;
    const validity = message.ttlSeconds ? relativeTime(message.ttlSeconds) : '';
    const deadline = now + MAX_QUEUE_WAIT_MS;
    const send = (part: SubmitPart): Promise<PduResult> =>
      this.submitPart(
        session,
        {
          source_addr: source.source_addr,
          source_addr_ton: source.source_addr_ton,
          source_addr_npi: source.source_addr_npi,
          destination_addr: message.destination,
          dest_addr_ton: destTon,
          dest_addr_npi: destNpi,
          esm_class: part.esm_class,
          registered_delivery: 1,
          data_coding: part.data_coding,
          validity_period: validity,
          short_message: part.short_message,
        },
        part.tlvs,
        deadline,
        message.urgent,
      );
    const accepted = earlier?.carrierIds ?? [];
    const results: (PduResult | string)[] =
      parts.length === 1 && !earlier
        ? [await send(parts[0]!)]
        : await Promise.all(parts.map((part, i) => accepted[i] ?? send(part)));

    const carrierIds = results.map((r) =>
      typeof r === 'string'
        ? r
        : r.kind === 'response' && r.status === SMPP_STATUS.ROK
          ? submittedId(r.messageId, this.receiptIds)
          : undefined,
    );
    const refused = carrierIds.findIndex((id) => id === undefined);
    if (refused === -1) {
      partialSends.forget(message.id);
      const ids = carrierIds as string[];
      this.deliveries.remember(ids);
      this.siblings.submitted(this.id, ids);
      this.submitted++;
      return { kind: 'accepted', carrierIds: ids };
    }
    const outcome = this.refusalOutcome(results[refused] as PduResult);
    if (outcome.kind === 'transient' && carrierIds.some((id) => id !== undefined)) {
      partialSends.save(
        message.id,
        { connectorId: this.id, text, parts, carrierIds, expiresAt: now + partialSendTtlMs(message) },
        now,
      );
    } else {
      partialSends.forget(message.id);
    }
    return outcome;
  }

  /** The outcome of a message from the first of its parts that was not accepted. */
  private refusalOutcome(result: PduResult): SubmitOutcome {
    // No answer (connection lost, timeout): soon again, through this connector once it is back or another of the
    // route.
    if (result.kind === 'failed') {
      return {
        kind: 'transient',
        retryAfterMs: Math.max(NOT_BOUND_RETRY_MS, this.throttling.pauseLeftMs),
        reason: result.reason,
      };
    }
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

  /** The pause and rate after throttling refusals, for tests and the operator. */
  throttlingState(): { pausedForMs: number; steps: number; rate: number } {
    return this.throttling.snapshot();
  }

  /** A 16-bit concatenation reference (udh16 and SAR take it whole, udh8 its low byte). */
  private nextReference(): number {
    this.reference = (this.reference + 1) & 0xffff;
    return this.reference;
  }

  /**
   * Sends one part, and sends it again (the same bytes, so the same concatenation reference) while the SMSC answers
   * that it is busy, after the pause that answer started, until `deadline`: only the refused part goes again.
   */
  private async submitPart(
    session: SmppSession,
    fields: SubmitSmFields,
    tlvs: readonly Tlv[],
    deadline: number,
    urgent: boolean,
  ): Promise<PduResult> {
    let refused: PduResult | undefined;
    for (;;) {
      const turn = await this.throttling.waitTurn(deadline);
      if (!turn) {
        return refused ?? { kind: 'failed', reason: `${this.id}: the SMSC asked to slow down`, sent: false };
      }
      const sent = this.throttling.sending();
      const current = session.state === 'bound' ? session : this.pickSession();
      let result: PduResult;
      if (!current) {
        result = { kind: 'failed', reason: `${this.id} is not bound`, sent: false };
      } else if (!this.throttle.tryAcquire(urgent) && !(await this.throttle.acquire(MAX_QUEUE_WAIT_MS, urgent))) {
        result = { kind: 'failed', reason: `${this.id}: window busy`, sent: false };
      } else if (this.throttling.sending() !== sent) {
        // A pause began while this part waited for a window slot: it waits for the pause's end instead.
        this.throttle.release(urgent);
        if (turn === 'probe') this.throttling.probeEnded();
        continue;
      } else {
        try {
          result = await current.request(new SubmitSm(fields, tlvs));
        } finally {
          this.throttle.release(urgent);
        }
        if (result.kind === 'response' && SLOW_DOWN.has(result.status)) this.throttling.refused(sent);
        if (result.kind === 'response' && result.status === SMPP_STATUS.ROK) this.throttling.accepted();
      }
      if (turn === 'probe') this.throttling.probeEnded();
      if (result.kind === 'response' && SLOW_DOWN.has(result.status)) {
        refused = result;
        continue;
      }
      return result;
    }
  }

  private noteError(session: SmppSession, message: string): void {
    this.lastError = message;
    this.lastErrorAt = this.clock.now();
    this.log.warn({ connector: this.id, session: session.number, error: message }, 'SMPP problem');
  }

  /** Inbound SMS received without an inbound sink, oldest first. */
  inboundKept(): readonly SmsInbound[] {
    return this.deliveries.inboundKept();
  }
}
