import type { Logger } from 'pino';
import smpp from 'smpp';
import '../../shared/gsmCoderCache.js';
import type { SmppConnectorConfig } from '../../config/configFile.js';
import type { CarrierReceipt } from '../connector.js';
import type { Connector, ConnectorState, OutboundMessage, ReceiptSink, SubmitOutcome } from '../connector.js';
import { Throttle } from '../throttle.js';
import { type Clock, type ClockTimer, systemClock } from '../../util/clock.js';
import { corkUntilNextTick } from './corkedWrites.js';
import { DeliverSmResp, SubmitSm, type SubmitSmFields } from './hotPdus.js';
import { isTransientStatus, SMPP_STATUS, statusName, THROTTLED_RETRY_MS, TRANSIENT_RETRY_MS } from './smppErrors.js';
import {
  ESM_DELIVERY_RECEIPT,
  parseReceipt,
  relativeTime,
  smsPdus,
  sourceAddress,
  type SubmitPart,
} from './smppMessage.js';

type SessionState = 'stopped' | 'connecting' | 'binding' | 'bound' | 'disconnected';
type PduResult = { kind: 'response'; status: number; messageId: string } | { kind: 'failed'; reason: string };

/** How long a submission may wait for a window slot before its message goes back to the queue. */
const MAX_QUEUE_WAIT_MS = 10_000;
/** Retry delay when the session is down: short, because another connector of the route may take it. */
const NOT_BOUND_RETRY_MS = 1000;

/**
 * SMS over SMPP 3.4 as a transceiver ESME. The `smpp` package gives PDUs and a socket session; this class adds
 * what it lacks: binding, enquire_link with its own timeout, response timeouts, reconnection with exponential
 * back-off, an in-flight window and rate, GSM 03.38 / UCS-2 encoding with concatenation, and receipts that are
 * acknowledged only after they are recorded. The package stops reading a session after a malformed PDU (it
 * emits `error` and never reads again): every session error therefore closes the session and reconnects.
 */
export class SmppConnector implements Connector {
  readonly type = 'smpp';
  readonly channel = 'SMS' as const;
  readonly id: string;
  private session: smpp.Session | undefined;
  private sessionState: SessionState = 'stopped';
  private readonly throttle: Throttle;
  private readonly inFlight = new Map<number, (result: PduResult) => void>();
  private reconnectTimer: ClockTimer | undefined;
  /** The session's enquire_link timer and the wait for its answer: both end with the session. */
  private enquireTimer: ClockTimer | undefined;
  private enquireAnswerTimer: ClockTimer | undefined;
  private backoffMs: number;
  private reference = Math.floor(Math.random() * 256);
  private submitted = 0;
  private lastError: string | null = null;
  private stopping = false;
  /** Resolved when the session is bound; tests and start-up wait on it. */
  private boundWaiters: (() => void)[] = [];

  constructor(
    private readonly config: SmppConnectorConfig,
    private readonly sink: ReceiptSink,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.id = config.id;
    this.throttle = new Throttle(config.window, config.mps);
    this.backoffMs = config.reconnectMinMs;
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.throttle.reopen();
    this.connect();
  }

  release(): void {
    this.throttle.rejectAll();
  }

  /** Resolves when bound, or after `timeoutMs` with false. */
  waitBound(timeoutMs: number): Promise<boolean> {
    if (this.sessionState === 'bound') return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(timeoutMs, () => resolve(false));
      this.boundWaiters.push(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }

  available(): boolean {
    return this.sessionState === 'bound';
  }

  state(): ConnectorState {
    return {
      id: this.id,
      type: this.type,
      channel: this.channel,
      available: this.available(),
      state: this.sessionState,
      inFlight: this.throttle.active,
      window: this.config.window,
      mps: this.config.mps,
      submitted: this.submitted,
      lastError: this.lastError,
    };
  }

  /** Unbinds politely (waiting up to the response timeout), then closes; submissions in flight fail as transient. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.reconnectTimer?.cancel();
    this.stopEnquireLink();
    this.throttle.rejectAll();
    const session = this.session;
    if (session && this.sessionState === 'bound') {
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimer(this.config.responseTimeoutSeconds * 1000, resolve);
        const sent = session.send(new smpp.PDU('unbind'), () => {
          timer.cancel();
          resolve();
        });
        if (!sent) {
          timer.cancel();
          resolve();
        }
      });
    }
    this.sessionState = 'stopped';
    if (session) await new Promise<void>((resolve) => session.destroy(() => resolve()));
    this.failInFlight('connector stopped');
  }

  async submit(message: OutboundMessage): Promise<SubmitOutcome> {
    if (this.sessionState !== 'bound') {
      return {
        kind: 'transient',
        retryAfterMs: NOT_BOUND_RETRY_MS,
        reason: `${this.id} is not bound (${this.sessionState})`,
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
    const results =
      parts.length === 1
        ? [await this.submitPart(common, parts[0]!)]
        : await Promise.all(parts.map((part) => this.submitPart(common, part)));

    const carrierIds: string[] = [];
    for (const result of results) {
      // No answer (connection lost, timeout): soon again, through this connector once it is back or another of the
      // route.
      if (result.kind === 'failed')
        return { kind: 'transient', retryAfterMs: NOT_BOUND_RETRY_MS, reason: result.reason };
      if (result.status !== SMPP_STATUS.ROK) {
        const reason = `${this.id}: submit_sm refused with ${statusName(result.status)}`;
        if (isTransientStatus(result.status)) {
          const retryAfterMs = result.status === SMPP_STATUS.RTHROTTLED ? THROTTLED_RETRY_MS : TRANSIENT_RETRY_MS;
          return { kind: 'transient', retryAfterMs, reason, errorCode: result.status };
        }
        return { kind: 'permanent', errorCode: result.status, reason };
      }
      carrierIds.push(result.messageId);
    }
    this.submitted++;
    return { kind: 'accepted', carrierIds };
  }

  private nextReference(): number {
    this.reference = (this.reference + 1) & 0xff;
    return this.reference;
  }

  private async submitPart(common: Omit<SubmitSmFields, keyof SubmitPart>, part: SubmitPart): Promise<PduResult> {
    if (!this.throttle.tryAcquire() && !(await this.throttle.acquire(MAX_QUEUE_WAIT_MS))) {
      return { kind: 'failed', reason: `${this.id}: window busy` };
    }
    const session = this.session;
    if (!session || this.sessionState !== 'bound') {
      this.throttle.release();
      return { kind: 'failed', reason: `${this.id} is not bound` };
    }
    return new Promise<PduResult>((resolve) => {
      const pdu = new SubmitSm({ ...common, ...part });
      let settled = false;
      const done = (result: PduResult): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        this.inFlight.delete(pdu.sequence_number);
        this.throttle.release();
        resolve(result);
      };
      const timer = this.clock.setTimer(this.config.responseTimeoutSeconds * 1000, () =>
        done({
          kind: 'failed',
          reason: `${this.id}: no submit_sm_resp within ${this.config.responseTimeoutSeconds} s`,
        }),
      );
      corkUntilNextTick(session.socket);
      // A PDU by what Session.send uses of one (see hotPdus.ts).
      const sent = session.send(pdu as unknown as smpp.PDU, (response) =>
        done({ kind: 'response', status: response.command_status, messageId: String(response.message_id ?? '') }),
      );
      if (!sent) done({ kind: 'failed', reason: `${this.id}: socket not writable` });
      else this.inFlight.set(pdu.sequence_number, done);
    });
  }

  private connect(): void {
    if (this.stopping) return;
    this.sessionState = 'connecting';
    const session = smpp.connect({ host: this.config.host, port: this.config.port });
    this.session = session;
    session.on('connect', () => this.bind(session));
    session.on('error', (error: Error) => {
      // Also raised for a malformed PDU, after which the package reads no more: close and start again.
      this.noteError(`session error: ${error.message}`);
      session.destroy();
    });
    session.on('close', () => this.onClose(session));
    session.on('deliver_sm', (pdu: smpp.PDU) => this.onDeliverSm(session, pdu));
    session.on('enquire_link', (pdu: smpp.PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: smpp.PDU) => {
      session.send(pdu.response());
      session.close();
    });
  }

  private bind(session: smpp.Session): void {
    this.sessionState = 'binding';
    session.send(
      new smpp.PDU('bind_transceiver', {
        system_id: this.config.systemId,
        password: this.config.password,
        system_type: this.config.systemType,
        interface_version: 0x34,
      }),
      (response) => {
        if (response.command_status !== SMPP_STATUS.ROK) {
          this.noteError(`bind refused with ${statusName(response.command_status)}`);
          session.destroy();
          return;
        }
        if (this.session !== session || this.stopping) return;
        this.sessionState = 'bound';
        this.backoffMs = this.config.reconnectMinMs;
        this.log.info({ connector: this.id }, 'SMPP session bound');
        this.startEnquireLink(session);
        for (const waiter of this.boundWaiters.splice(0)) waiter();
      },
    );
  }

  /** enquire_link on a timer; no answer within the response timeout means the link is dead. */
  private startEnquireLink(session: smpp.Session): void {
    this.stopEnquireLink();
    const tick = (): void => {
      this.enquireAnswerTimer = this.clock.setTimer(this.config.responseTimeoutSeconds * 1000, () => {
        if (this.session !== session) return;
        this.noteError('no enquire_link_resp');
        session.destroy();
      });
      const sent = session.send(new smpp.PDU('enquire_link'), () => this.enquireAnswerTimer?.cancel());
      if (!sent) this.enquireAnswerTimer.cancel();
      this.enquireTimer = this.clock.setTimer(this.config.enquireLinkSeconds * 1000, tick);
    };
    this.enquireTimer = this.clock.setTimer(this.config.enquireLinkSeconds * 1000, tick);
  }

  private stopEnquireLink(): void {
    this.enquireTimer?.cancel();
    this.enquireAnswerTimer?.cancel();
    this.enquireTimer = undefined;
    this.enquireAnswerTimer = undefined;
  }

  private onClose(session: smpp.Session): void {
    if (this.session !== session) return;
    this.stopEnquireLink();
    this.failInFlight('connection closed');
    if (this.stopping) {
      this.sessionState = 'stopped';
      return;
    }
    this.sessionState = 'disconnected';
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.config.reconnectMaxMs);
    this.log.warn(
      { connector: this.id, retryInMs: delay, lastError: this.lastError },
      'SMPP session closed; reconnecting',
    );
    this.reconnectTimer = this.clock.setTimer(delay, () => this.connect());
  }

  private failInFlight(reason: string): void {
    for (const done of [...this.inFlight.values()]) done({ kind: 'failed', reason: `${this.id}: ${reason}` });
  }

  private noteError(message: string): void {
    this.lastError = message;
    this.log.warn({ connector: this.id, error: message }, 'SMPP problem');
  }

  /** Receipts are recorded first and acknowledged after; a failure to record asks the SMSC to send it again. */
  private onDeliverSm(session: smpp.Session, pdu: smpp.PDU): void {
    const esmClass = Number(pdu.esm_class ?? 0);
    const shortMessage = pdu.short_message as { message?: unknown } | Buffer | undefined;
    const text =
      shortMessage && !Buffer.isBuffer(shortMessage) && typeof shortMessage.message === 'string'
        ? shortMessage.message
        : '';
    if ((esmClass & ESM_DELIVERY_RECEIPT) === 0) {
      // A mobile-originated SMS: Herald takes inbound messages on WhatsApp only (spec 6.5).
      session.send(pdu.response());
      return;
    }
    const parsed = parseReceipt({
      receipted_message_id: pdu.receipted_message_id,
      message_state: pdu.message_state,
      text,
    });
    if (!parsed || parsed.stat === 'intermediate') {
      if (!parsed) this.log.warn({ connector: this.id, text }, 'unreadable delivery receipt acknowledged');
      session.send(pdu.response());
      return;
    }
    const receipt: CarrierReceipt = {
      connectorId: this.id,
      carrierId: parsed.carrierId,
      state: parsed.stat,
      at: this.clock.now(),
      errorCode: parsed.errorCode,
    };
    this.sink([receipt]).then(
      () => {
        corkUntilNextTick(session.socket);
        session.send(new DeliverSmResp(pdu.sequence_number) as unknown as smpp.PDU);
      },
      (error: unknown) => {
        this.log.error({ connector: this.id, err: error }, 'receipt not recorded; asking the SMSC to resend');
        session.send(new DeliverSmResp(pdu.sequence_number, SMPP_STATUS.RX_T_APPN) as unknown as smpp.PDU);
      },
    );
  }
}
