import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import smpp from 'smpp';
import type { SmppTlsConfig } from '../connectorConfig.js';
import { type Clock, type ClockTimer } from '../../util/clock.js';
import { corkUntilNextTick } from './corkedWrites.js';
import { PendingAnswers } from '../../util/pendingAnswers.js';
import { SMPP_STATUS, statusName } from './smppErrors.js';

export type SessionState = 'stopped' | 'connecting' | 'binding' | 'bound' | 'disconnected';
export type SessionRole = 'transceiver' | 'transmitter' | 'receiver';
export type PduResult =
  | { kind: 'response'; status: number; messageId: string }
  | { kind: 'failed'; reason: string; /** The PDU went out, so the SMSC may have taken it. */ sent: boolean };

/** What a session needs of its connector's settings. */
export interface SessionSettings {
  readonly id: string;
  readonly host: string;
  readonly port: number;
  readonly systemId: string;
  readonly password: string;
  readonly systemType: string;
  readonly tls: SmppTlsConfig;
  readonly enquireLinkSeconds: number;
  readonly responseTimeoutSeconds: number;
  readonly reconnectMinMs: number;
  readonly reconnectMaxMs: number;
}

/** What a session tells its connector. */
export interface SessionEvents {
  bound(session: SmppSession): void;
  /** The session left `bound` (closed, or stopped). */
  unbound(session: SmppSession): void;
  /** A deliver_sm or data_sm from the SMSC: the connector answers it through {@link SmppSession.respond}. */
  message(session: SmppSession, link: SmppLink, pdu: smpp.PDU): void;
  error(session: SmppSession, message: string): void;
}

/**
 * How long a bind must last for the reconnect back-off to start again from `reconnectMinMs`. An SMSC that takes
 * fewer binds than a connector's `sessions` (opensmppbox: one per system_type and bind type) answers the extra bind
 * and closes it at once: 52 times in 70 s when each drop reset the back-off. A minute up is a working session.
 */
export const SESSION_STABLE_MS = 60_000;

/** Requests an ESME answers itself; any other request is answered generic_nack (SMPP 3.4, 4.3). */
const NO_ANSWER = new Set(['alert_notification', 'outbind']);

/**
 * One connection and its bind. Every timer of the connection (connect, bind, enquire_link and its answer,
 * response timeouts) belongs to it and is cancelled when it closes, so that nothing of a dead connection fires
 * into the next one.
 */
export class SmppLink {
  private readonly timers = new Set<ClockTimer>();
  /** Requests sent on this connection and waiting for their response, by sequence number. */
  readonly awaitingResponse: PendingAnswers<number, PduResult>;
  closed = false;
  /** A problem was reported on it (Herald closes it for that): its close needs no other explanation. */
  failed = false;

  constructor(
    readonly socket: smpp.Session,
    private readonly clock: Clock,
    /** How long a request waits for its response, and what its failure says when none comes. */
    response: { readonly timeoutMs: number; readonly timeoutReason: string },
  ) {
    this.awaitingResponse = new PendingAnswers<number, PduResult>(clock, response.timeoutMs, {
      kind: 'failed',
      reason: response.timeoutReason,
      sent: true,
    });
  }

  /** A timer that dies with the connection. */
  later(ms: number, fn: () => void): ClockTimer {
    if (this.closed) return { cancel: () => undefined };
    const timer = this.clock.setTimer(ms, () => {
      this.timers.delete(timer);
      if (!this.closed) fn();
    });
    this.timers.add(timer);
    return {
      cancel: () => {
        timer.cancel();
        this.timers.delete(timer);
      },
    };
  }

  /** Cancels every timer and fails every submission still waiting for its answer. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) timer.cancel();
    this.timers.clear();
    this.awaitingResponse.settleAll({ kind: 'failed', reason, sent: true });
  }

  /** Its timers armed: its own, and the one of its requests' timeouts. */
  get timerCount(): number {
    return this.timers.size + (this.awaitingResponse.armed ? 1 : 0);
  }
}

/**
 * One bind of an SMPP connector (transceiver, transmitter or receiver): connects, binds within the response timeout,
 * keeps the link alive with enquire_link, answers the SMSC's requests it does not know with generic_nack, and
 * reconnects with exponential back-off. The `smpp` package stops reading a session after a malformed PDU (it emits
 * `error` and never reads again): every session error therefore closes the connection and reconnects.
 */
export class SmppSession {
  private sessionState: SessionState = 'stopped';
  private link: SmppLink | undefined;
  private reconnectTimer: ClockTimer | undefined;
  private backoffMs: number;
  /** When the live connection was bound (the clock's ms), undefined while not bound. */
  private boundAt: number | undefined;
  private stopping = true;

  constructor(
    private readonly settings: SessionSettings,
    readonly role: SessionRole,
    /** 1, 2, ... within the connector, for logs. */
    readonly number: number,
    private readonly events: SessionEvents,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {
    this.backoffMs = settings.reconnectMinMs;
  }

  get state(): SessionState {
    return this.sessionState;
  }

  get transmits(): boolean {
    return this.role !== 'receiver';
  }

  get receives(): boolean {
    return this.role !== 'transmitter';
  }

  /** The live connection's timers (tests check that none outlives its connection). */
  get liveTimers(): number {
    return this.link?.timerCount ?? 0;
  }

  start(): void {
    this.stopping = false;
    this.connect();
  }

  /** Unbinds politely (waiting up to the response timeout), then closes; submissions in flight fail. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.reconnectTimer?.cancel();
    this.reconnectTimer = undefined;
    const link = this.link;
    const wasBound = this.sessionState === 'bound';
    this.sessionState = 'stopped';
    if (wasBound) this.events.unbound(this);
    if (!link) return;
    if (wasBound && !link.closed) {
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimer(this.settings.responseTimeoutSeconds * 1000, resolve);
        const sent = link.socket.send(new smpp.PDU('unbind'), () => {
          timer.cancel();
          resolve();
        });
        if (!sent) {
          timer.cancel();
          resolve();
        }
      });
    }
    link.close(`${this.settings.id}: connector stopped`);
    await new Promise<void>((resolve) => link.socket.destroy(() => resolve()));
  }

  /**
   * Sends a request on the bound connection and resolves with its response, or with a failure when the connection
   * is down, closes before the answer, or no answer comes within the response timeout.
   */
  request(pdu: { sequence_number: number }, corked = true): Promise<PduResult> {
    const link = this.link;
    if (!link || link.closed || this.sessionState !== 'bound') {
      return Promise.resolve({ kind: 'failed', reason: `${this.settings.id} is not bound`, sent: false });
    }
    return new Promise<PduResult>((resolve) => {
      if (corked) corkUntilNextTick(link.socket.socket);
      // A PDU by what Session.send uses of one (see hotPdus.ts); send numbers it.
      const sent = link.socket.send(pdu as unknown as smpp.PDU, (response) =>
        link.awaitingResponse.settle(response.sequence_number, {
          kind: 'response',
          status: response.command_status,
          messageId: String(response.message_id ?? ''),
        }),
      );
      if (sent) link.awaitingResponse.add(pdu.sequence_number, resolve);
      else resolve({ kind: 'failed', reason: `${this.settings.id}: socket not writable`, sent: false });
    });
  }

  /** Answers a request of the SMSC on the connection it came on (nothing if that connection is gone). */
  respond(link: SmppLink, response: unknown): void {
    if (link.closed) return;
    corkUntilNextTick(link.socket.socket);
    link.socket.send(response as smpp.PDU);
  }

  private connect(): void {
    if (this.stopping) return;
    this.sessionState = 'connecting';
    const tls = this.settings.tls;
    const socket = smpp.connect({
      host: this.settings.host,
      port: this.settings.port,
      ...(tls === false ? {} : { tls: true, ...tlsOptions(tls, this.settings.host) }),
    });
    const timeoutMs = this.settings.responseTimeoutSeconds * 1000;
    const link = new SmppLink(socket, this.clock, {
      timeoutMs,
      timeoutReason: `${this.settings.id}: no response within ${this.settings.responseTimeoutSeconds} s`,
    });
    this.link = link;
    const connectTimer = link.later(timeoutMs, () => {
      this.noteError(link, `no connection within ${this.settings.responseTimeoutSeconds} s`);
      socket.destroy();
    });
    socket.on(tls === false ? 'connect' : 'secureConnect', () => {
      connectTimer.cancel();
      this.bind(link);
    });
    socket.on('error', (error: Error) => {
      // Also raised for a malformed PDU, after which the package reads no more: close and start again.
      this.noteError(link, `session error: ${error.message}`);
      socket.destroy();
    });
    socket.on('close', () => this.onClose(link));
    socket.on('pdu', (pdu: smpp.PDU) => this.onPdu(link, pdu));
  }

  private bind(link: SmppLink): void {
    if (link.closed) return;
    this.sessionState = 'binding';
    // An SMSC that never answers the bind would leave the session binding forever.
    const bindTimer = link.later(this.settings.responseTimeoutSeconds * 1000, () => {
      this.noteError(link, `no bind response within ${this.settings.responseTimeoutSeconds} s`);
      link.socket.destroy();
    });
    link.socket.send(
      new smpp.PDU(`bind_${this.role}`, {
        system_id: this.settings.systemId,
        password: this.settings.password,
        system_type: this.settings.systemType,
        interface_version: 0x34,
      }),
      (response) => {
        bindTimer.cancel();
        if (link.closed || this.link !== link || this.stopping) return;
        if (response.command_status !== SMPP_STATUS.ROK) {
          this.noteError(link, `bind refused with ${statusName(response.command_status)}`);
          link.socket.destroy();
          return;
        }
        this.sessionState = 'bound';
        this.boundAt = this.clock.nowMs();
        // A bind that is closed at once counts as a failed one: the back-off starts again only once it has lasted.
        link.later(SESSION_STABLE_MS, () => (this.backoffMs = this.settings.reconnectMinMs));
        this.log.info({ connector: this.settings.id, session: this.number, role: this.role }, 'SMPP session bound');
        this.startEnquireLink(link);
        this.events.bound(this);
      },
    );
  }

  /** enquire_link on a timer; no answer within the response timeout means the link is dead. */
  private startEnquireLink(link: SmppLink): void {
    const tick = (): void => {
      const answerTimer = link.later(this.settings.responseTimeoutSeconds * 1000, () => {
        this.noteError(link, 'no enquire_link_resp');
        link.socket.destroy();
      });
      if (!link.socket.send(new smpp.PDU('enquire_link'), () => answerTimer.cancel())) answerTimer.cancel();
      link.later(this.settings.enquireLinkSeconds * 1000, tick);
    };
    link.later(this.settings.enquireLinkSeconds * 1000, tick);
  }

  private onPdu(link: SmppLink, pdu: smpp.PDU): void {
    if (link.closed || pdu.isResponse()) return;
    switch (pdu.command) {
      case 'enquire_link':
        this.respond(link, pdu.response());
        return;
      case 'unbind':
        this.respond(link, pdu.response());
        link.socket.close();
        return;
      case 'deliver_sm':
      case 'data_sm':
        if (this.receives) {
          this.events.message(this, link, pdu);
          return;
        }
        break;
      default:
        if (NO_ANSWER.has(pdu.command)) return;
    }
    // A command this ESME does not take (or one the package does not know): SMPP 3.4 asks for generic_nack.
    this.log.warn({ connector: this.settings.id, command: pdu.command, id: pdu.command_id }, 'SMPP request refused');
    this.respond(
      link,
      new smpp.PDU('generic_nack', { sequence_number: pdu.sequence_number, command_status: SMPP_STATUS.RINVCMDID }),
    );
  }

  private onClose(link: SmppLink): void {
    const wasBound = this.sessionState === 'bound' && this.link === link;
    link.close(`${this.settings.id}: connection closed`);
    if (this.link !== link) return;
    this.link = undefined;
    if (this.stopping) {
      this.sessionState = 'stopped';
      return;
    }
    this.sessionState = 'disconnected';
    const upForMs = wasBound && this.boundAt !== undefined ? this.clock.nowMs() - this.boundAt : undefined;
    this.boundAt = undefined;
    if (wasBound) this.events.unbound(this);
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.settings.reconnectMaxMs);
    this.log.warn(
      { connector: this.settings.id, session: this.number, retryInMs: delay },
      'SMPP session closed; reconnecting',
    );
    if (upForMs !== undefined && upForMs < SESSION_STABLE_MS && !link.failed) {
      this.events.error(
        this,
        `session ${this.number} closed ${seconds(upForMs)} s after its bind; binding again in ${seconds(delay)} s ` +
          '(the wait doubles while binds do not last: an SMSC that takes fewer binds than `sessions` does this)',
      );
    }
    this.reconnectTimer = this.clock.setTimer(delay, () => {
      this.reconnectTimer = undefined;
      this.connect();
    });
  }

  /** Errors of a connection that is already gone are logged, and never reported as the connector's last error. */
  private noteError(link: SmppLink, message: string): void {
    if (link.closed || this.link !== link) {
      this.log.debug({ connector: this.settings.id, error: message }, 'SMPP problem on a closed connection');
      return;
    }
    link.failed = true;
    this.events.error(this, message);
  }
}

/** Milliseconds as seconds with one decimal at most. */
const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/** node:tls options from the connector's `tls` setting: PEM files read at each connection (they may be renewed). */
function tlsOptions(tls: Exclude<SmppTlsConfig, false>, host: string): Record<string, unknown> {
  // SNI takes a host name, never an address (RFC 6066, 3).
  const sni = isIP(host) ? {} : { servername: host };
  if (tls === true) return sni;
  return {
    ...(tls.servername ? { servername: tls.servername } : sni),
    ...(tls.ca ? { ca: readFileSync(tls.ca) } : {}),
    ...(tls.cert ? { cert: readFileSync(tls.cert) } : {}),
    ...(tls.key ? { key: readFileSync(tls.key) } : {}),
  };
}
