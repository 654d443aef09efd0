import { randomBytes } from 'node:crypto';
import smpp from 'smpp';
import '../shared/smppGsmCoderPatch.js';
import '../shared/smppHotDecode.js';
import {
  corkUntilNextTick,
  receiptFields,
  receiptTlvs,
  type ShortMessageFields,
  ShortMessagePdu,
  ShortMessageResp,
  type Tlv,
} from '../connectors/index.js';
import { outcomeOf, SIM_UNDELIVERED_ERROR, type SimOutcome } from './outcomes.js';
import { closeServer, listenOn } from './simulatorServers.js';
import { Timers } from './timers.js';
import { type Clock, type ClockTimer, systemClock } from '../util/clock.js';
import { yymmddhhmm } from '../util/time.js';

/** One submit_sm the simulator accepted or refused, as it arrived. */
export interface SimSubmission {
  readonly messageId: string | null;
  /** Which bound session it came on (1, 2, ... in bind order). */
  readonly session: number;
  readonly systemId: string;
  readonly source: string;
  readonly destination: string;
  readonly dataCoding: number;
  readonly esmClass: number;
  /** Concatenation (a UDH with an 8-bit or 16-bit reference, or SAR TLVs), when the part carries one. */
  readonly concat: {
    readonly reference: number;
    readonly total: number;
    readonly sequence: number;
    readonly form: 'udh8' | 'udh16' | 'sar';
  } | null;
  /** The whole text came in message_payload. */
  readonly payload: boolean;
  readonly sourceTon: number;
  readonly sourceNpi: number;
  readonly destTon: number;
  readonly destNpi: number;
  readonly text: string;
  /** The validity period asked for, in seconds from its arrival; null when none was given. */
  readonly validitySeconds: number | null;
  readonly status: number;
  readonly at: number;
}

interface PendingReceipt {
  readonly systemId: string;
  readonly fields: ShortMessageFields;
  readonly tlvs: readonly Tlv[];
  attempts: number;
}

export interface SmscSimulatorOptions {
  readonly host?: string;
  readonly port?: number;
  readonly systemId: string;
  readonly password: string;
  /** Delay between a submission and its receipt. */
  readonly delayMs: number;
  /** The clock of the delays (a test's, which can jump over them); the system clock by default. */
  readonly clock?: Clock;
  /** How submit_sm_resp writes message ids: hexadecimal (the default) or decimal. */
  readonly submitIds?: 'hex' | 'decimal';
  /** How receipts write them: as submit_sm_resp does (the default), or in the other base. */
  readonly receiptIds?: 'hex' | 'decimal';
  /** Receipt ids in upper case with leading zeros to 12 characters, as some SMSCs write them. */
  readonly receiptIdsPadded?: boolean;
  /** What becomes of a submission by its destination: outcomeOf's last-digit rule by default (one carrier of a test
   * may fail what another delivers). */
  readonly outcome?: (destination: string) => SimOutcome;
  /** The error code of an undelivered receipt (SIM_UNDELIVERED_ERROR by default) and the base of its `err:`. */
  readonly undeliveredError?: number;
  readonly receiptErrBase?: 10 | 16;
  /**
   * Undelivered receipts as Kannel's opensmppbox writes a submission its upstream SMSC refused: `err:000` and the
   * refusal in the text, `text:NACK/0x<command_status, 8 hex digits>/<its name>`.
   */
  readonly receiptErrInNack?: boolean;
  /** One receipt per part (the default), or one per multi-part message, on its last part's id. */
  readonly multipartReceipts?: 'each' | 'one';
  /**
   * One bind per system_type and bind command, as opensmppbox takes them (unless `use-systemid-as-smsboxid`): a
   * second one while the first is bound is answered, then closed at once.
   */
  readonly oneBindPerSystemType?: boolean;
  /** SMPP over TLS with this PEM key and certificate. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
}

/**
 * An SMSC on a real TCP port speaking SMPP 3.4 (the `smpp` package's server side): binds (checking credentials),
 * enquire_link, unbind, submit_sm with outcomes by the destination's last digit, and delivery receipts as
 * deliver_sm with receipted_message_id, message_state and the usual receipt text. Receipts go to the session that
 * submitted, else to another bound session of the same system id, and are kept until acknowledged: a receipt whose
 * session drops is sent again on the next bind. Tests can drop connections, go down and send a malformed PDU.
 */
export class SmscSimulator {
  readonly submissions: SimSubmission[] = [];
  /** Sessions that ended with an unbind from the client (a polite stop), by system_id. */
  readonly unbinds: string[] = [];
  /** Binds asked for, accepted or not: a test sees a client keep trying while the SMSC is down. */
  bindAttempts = 0;
  /** Every bind asked for: its command, system_type and time on the simulator's clock. */
  readonly binds: { command: string; systemType: string; at: number }[] = [];
  private server: smpp.Server | undefined;
  private readonly bound = new Map<smpp.Session, string>();
  /** Bound sessions by bind command and system_type (see `oneBindPerSystemType`). */
  private readonly bindKeys = new Map<smpp.Session, string>();
  private readonly sessionNumbers = new Map<smpp.Session, number>();
  /** Sessions bound as transmitters: they get no deliver_sm. */
  private readonly transmitters = new WeakSet<smpp.Session>();
  private sessionCounter = 0;
  private readonly unacked = new Map<smpp.Session, Map<number, PendingReceipt>>();
  private readonly backlog: PendingReceipt[] = [];
  private readonly timers: Timers;
  private readonly clock: Clock;
  private readonly receiptQueue: { due: number; session: smpp.Session; receipt: PendingReceipt }[] = [];
  private receiptTimer: ClockTimer | undefined;
  /** Ids are this random number's multiples of 2^32 plus a counter: unique across simulators and runs. */
  private readonly idBase = randomBytes(2).readUInt16BE(0) * 2 ** 32;
  private counter = 0;
  private receiptsAcked = 0;
  private down = false;
  private stalled = false;
  /** submit_sm received while stalled, unanswered (tests wait for theirs to arrive). */
  stalledSubmits = 0;
  private silentBinds = false;
  private readonly partRefusals: { sequence: number; status: number; left: number }[] = [];
  private shareRefusal: { status: number; share: number; owed: number } | undefined;
  private refusal: number | undefined;
  private keepSubmissions: (destination: string) => boolean = () => true;
  port = 0;

  constructor(private readonly options: SmscSimulatorOptions) {
    this.clock = options.clock ?? systemClock;
    this.timers = new Timers(this.clock);
  }

  async start(): Promise<number> {
    const server = smpp.createServer(this.options.tls ? { ...this.options.tls } : {}, (session) =>
      this.onSession(session),
    );
    this.server = server;
    this.port = await listenOn(server, this.options.host, this.options.port);
    return this.port;
  }

  async stop(): Promise<void> {
    this.timers.clear();
    this.receiptTimer?.cancel();
    this.receiptTimer = undefined;
    this.receiptQueue.length = 0;
    this.dropConnections();
    await closeServer(this.server);
  }

  /** Stops recording submissions (long benchmark runs), or keeps those to some destinations; counts stay. */
  recordSubmissions(keep: boolean | ((destination: string) => boolean)): void {
    this.keepSubmissions = typeof keep === 'function' ? keep : () => keep;
  }

  get submitCount(): number {
    return this.counter;
  }

  /** Receipts the ESMEs acknowledged (deliver_sm_resp with status 0), in all. */
  get receiptAckCount(): number {
    return this.receiptsAcked;
  }

  get boundSessions(): number {
    return this.bound.size;
  }

  /** Closes every session at once, as a crashing SMSC or a broken network would. */
  dropConnections(): void {
    for (const session of [...this.bound.keys(), ...(this.server?.sessions ?? [])]) session.destroy();
  }

  /** Closes the bound session number `n` (1, 2, ... in bind order) alone. */
  dropSession(n: number): void {
    for (const [session, number] of this.sessionNumbers) if (number === n) session.destroy();
  }

  /** While down, binds are refused and sessions dropped. */
  setDown(down: boolean): void {
    this.down = down;
    if (down) this.dropConnections();
  }

  /** While set, binds are taken and never answered, as from an SMSC whose bind handling hangs. */
  setSilentBinds(silent: boolean): void {
    this.silentBinds = silent;
  }

  /** While stalled, the SMSC keeps its connections but answers nothing (no submit_sm_resp, no enquire_link_resp). */
  setStalled(stalled: boolean): void {
    this.stalled = stalled;
  }

  /**
   * While set, every submit_sm is answered with this command_status (ESME_RTHROTTLED, say) and goes nowhere, as from
   * a busy or failing SMSC; `undefined` takes them again.
   */
  refuseSubmissions(status: number | undefined): void {
    this.refusal = status;
  }

  /**
   * Sends a request of the SMSC's own to the first bound session (a deliver_sm or data_sm with a subscriber's SMS or
   * a receipt, or a command the ESME may not know) and resolves with the ESME's answer, or undefined after
   * `timeoutMs` on the simulator's clock.
   */
  request(pdu: smpp.PDU, timeoutMs = 5000): Promise<smpp.PDU | undefined> {
    const session = this.receiver(this.options.systemId);
    if (!session) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(timeoutMs, () => resolve(undefined));
      session.send(pdu, (response) => {
        timer.cancel();
        resolve(response);
      });
    });
  }

  /**
   * Sends a subscriber's SMS (MO) to the ESME: one deliver_sm, or the parts of a long one (`partSize` characters
   * each) with an 8-bit or 16-bit concatenation UDH or SAR TLVs, in the given order of part numbers. The text is
   * plain ASCII letters, digits and punctuation, whose GSM 03.38 codes are the same. Resolves with the answers.
   */
  async sendMo(mo: {
    from: string;
    to: string;
    text: string;
    form?: 'udh8' | 'udh16' | 'sar';
    partSize?: number;
    order?: readonly number[];
    reference?: number;
  }): Promise<(smpp.PDU | undefined)[]> {
    const size = mo.partSize ?? 153;
    const chunks: string[] = [];
    for (let i = 0; i < mo.text.length; i += size) chunks.push(mo.text.slice(i, i + size));
    const total = chunks.length;
    const reference = mo.reference ?? 0x1234;
    const order = mo.order ?? chunks.map((_, i) => i + 1);
    const answers: (smpp.PDU | undefined)[] = [];
    for (const n of order) {
      const text = Buffer.from(chunks[n - 1]!, 'ascii');
      const fields: Record<string, unknown> = { source_addr: mo.from, destination_addr: mo.to, data_coding: 0 };
      if (total === 1) fields.short_message = text;
      else if (mo.form === 'sar') {
        Object.assign(fields, {
          short_message: text,
          sar_msg_ref_num: reference,
          sar_total_segments: total,
          sar_segment_seqnum: n,
        });
      } else {
        const udh =
          mo.form === 'udh16'
            ? [0x06, 0x08, 0x04, (reference >> 8) & 0xff, reference & 0xff, total, n]
            : [0x05, 0x00, 0x03, reference & 0xff, total, n];
        Object.assign(fields, { esm_class: 0x40, short_message: Buffer.concat([Buffer.from(udh), text]) });
      }
      answers.push(await this.request(new smpp.PDU('deliver_sm', fields)));
    }
    return answers;
  }

  /** A request with a command_id SMPP 3.4 does not define (an ESME answers generic_nack). */
  static unknownCommand(commandId = 0x00000099): smpp.PDU {
    const pdu = new smpp.PDU('enquire_link');
    pdu.command_id = commandId;
    return pdu;
  }

  /**
   * Refuses this share (0-1) of submit_sm with `status`, evenly spread (every fifth for 0.2), as a busy SMSC answering
   * ESME_RTHROTTLED to some submits; `undefined` ends it.
   */
  refuseShare(status: number | undefined, share = 0): void {
    this.shareRefusal = status === undefined ? undefined : { status, share, owed: 0 };
  }

  /** Refuses the next `times` parts number `sequence` of concatenated messages with `status`. */
  refusePart(sequence: number, status: number, times = 1): void {
    this.partRefusals.push({ sequence, status, left: times });
  }

  /** Writes bytes that are not a valid PDU to every bound session. */
  sendMalformedPdu(): void {
    for (const session of this.bound.keys()) {
      // command_length 16, command_id 0x80000004 (submit_sm_resp) but too short for its body, then junk.
      session.socket.write(Buffer.from([0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff]));
    }
  }

  /** Reassembles concatenated parts: one entry per message (by destination and reference), in arrival order. */
  messages(): { destination: string; source: string; text: string; parts: number; dataCoding: number }[] {
    const result: { destination: string; source: string; text: string; parts: number; dataCoding: number }[] = [];
    const groups = new Map<string, SimSubmission[]>();
    for (const s of this.submissions) {
      if (s.messageId === null) continue;
      if (!s.concat) {
        result.push({ destination: s.destination, source: s.source, text: s.text, parts: 1, dataCoding: s.dataCoding });
        continue;
      }
      const key = `${s.destination}\u0000${s.concat.reference}\u0000${s.concat.total}`;
      const group = groups.get(key) ?? [];
      group.push(s);
      groups.set(key, group);
      if (group.length === s.concat.total) {
        groups.delete(key);
        const ordered = [...group].sort((a, b) => a.concat!.sequence - b.concat!.sequence);
        result.push({
          destination: s.destination,
          source: s.source,
          text: ordered.map((p) => p.text).join(''),
          parts: ordered.length,
          dataCoding: s.dataCoding,
        });
      }
    }
    return result;
  }

  private onSession(session: smpp.Session): void {
    session.on('error', () => session.destroy());
    session.on('close', () => this.onClose(session));
    const bind = (pdu: smpp.PDU): void => {
      this.bindAttempts++;
      this.binds.push({ command: pdu.command, systemType: String(pdu.system_type ?? ''), at: this.clock.nowMs() });
      if (this.silentBinds) return;
      if (this.down || pdu.system_id !== this.options.systemId || pdu.password !== this.options.password) {
        session.send(pdu.response({ command_status: this.down ? smpp.ESME_RSYSERR : smpp.ESME_RINVPASWD }));
        session.close();
        return;
      }
      session.send(pdu.response({ system_id: 'herald-sim' }));
      const bindKey = `${pdu.command}\u0000${String(pdu.system_type ?? '')}`;
      if (this.options.oneBindPerSystemType && [...this.bindKeys.values()].includes(bindKey)) {
        session.close();
        return;
      }
      this.bindKeys.set(session, bindKey);
      this.bound.set(session, String(pdu.system_id));
      if (pdu.command === 'bind_transmitter') this.transmitters.add(session);
      this.sessionNumbers.set(session, ++this.sessionCounter);
      this.unacked.set(session, new Map());
      this.flushBacklog(String(pdu.system_id));
    };
    session.on('bind_transceiver', bind);
    session.on('bind_transmitter', bind);
    session.on('bind_receiver', bind);
    session.on('enquire_link', (pdu: smpp.PDU) => {
      if (!this.stalled) session.send(pdu.response());
    });
    session.on('unbind', (pdu: smpp.PDU) => {
      this.unbinds.push(this.bound.get(session) ?? '');
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: smpp.PDU) => {
      if (this.stalled) this.stalledSubmits++;
      else this.onSubmit(session, pdu);
    });
    session.on('deliver_sm_resp', (pdu: smpp.PDU) => this.onReceiptAck(session, pdu));
  }

  private onClose(session: smpp.Session): void {
    const systemId = this.bound.get(session);
    this.bound.delete(session);
    this.bindKeys.delete(session);
    const unacked = this.unacked.get(session);
    this.unacked.delete(session);
    if (systemId && unacked) {
      for (const receipt of unacked.values()) this.backlog.push(receipt);
      this.flushBacklog(systemId);
    }
  }

  private onSubmit(session: smpp.Session, pdu: smpp.PDU): void {
    const systemId = this.bound.get(session);
    if (!systemId) {
      session.send(pdu.response({ command_status: 0x04 })); // ESME_RINVBNDSTS
      return;
    }
    const destination = String(pdu.destination_addr);
    const sequence = concatOf(pdu)?.sequence;
    const partRefusal = this.partRefusals.find((r) => r.sequence === sequence && r.left > 0);
    if (partRefusal) partRefusal.left--;
    let shared: number | undefined;
    if (this.shareRefusal) {
      this.shareRefusal.owed += this.shareRefusal.share;
      if (this.shareRefusal.owed >= 1) {
        this.shareRefusal.owed -= 1;
        shared = this.shareRefusal.status;
      }
    }
    const refusal = this.refusal ?? partRefusal?.status ?? shared;
    if (refusal !== undefined) {
      if (this.keepSubmissions(destination))
        this.submissions.push({
          ...this.describe(session, pdu, systemId, null, String(pdu.source_addr), destination),
          status: refusal,
        });
      session.send(pdu.response({ command_status: refusal }));
      return;
    }
    const outcome = (this.options.outcome ?? outcomeOf)(destination);
    const idNumber = this.idBase + ++this.counter;
    const messageId = outcome === 'rejected' ? null : this.writeId(idNumber, this.options.submitIds ?? 'hex');
    const source = String(pdu.source_addr);
    if (this.keepSubmissions(destination))
      this.submissions.push(this.describe(session, pdu, systemId, messageId, source, destination));
    if (outcome === 'rejected') {
      session.send(pdu.response({ command_status: smpp.ESME_RINVDSTADR }));
      return;
    }
    corkUntilNextTick(session.socket);
    // Directly encoded, as Herald's own hot PDUs (see hotPdus.ts): the simulator answers 10,000 a second too.
    session.send(new ShortMessageResp('submit_sm_resp', pdu.sequence_number, 0, messageId!) as unknown as smpp.PDU);
    if (outcome === 'silent') return;
    const concat = concatOf(pdu);
    if (this.options.multipartReceipts === 'one' && concat && concat.sequence !== concat.total) return;
    const delivered = outcome !== 'undelivered';
    let reportedId = this.writeId(idNumber, this.options.receiptIds ?? this.options.submitIds ?? 'hex');
    if (this.options.receiptIdsPadded) reportedId = reportedId.toUpperCase().padStart(12, '0');
    const error = this.options.undeliveredError ?? SIM_UNDELIVERED_ERROR;
    const err = delivered
      ? '000'
      : error
          .toString(this.options.receiptErrBase ?? 10)
          .toUpperCase()
          .padStart(3, '0');
    const receipt: PendingReceipt = {
      systemId,
      attempts: 0,
      // The receipt text is plain ASCII letters, digits, colons and spaces: their GSM 03.38 codes are the same.
      fields: receiptFields(
        { addr: destination, ton: 1, npi: 1 },
        source,
        Buffer.from(
          this.options.receiptErrInNack && !delivered
            ? receiptText(reportedId, false, '000', `NACK/0x${error.toString(16).padStart(8, '0')}/Submit failed`)
            : receiptText(reportedId, delivered, err),
          'ascii',
        ),
      ),
      tlvs: receiptTlvs(reportedId, delivered ? 2 : 5),
    };
    this.receiptQueue.push({ due: this.clock.nowMs() + this.options.delayMs, session, receipt });
    this.scheduleReceipts();
  }

  private describe(
    session: smpp.Session,
    pdu: smpp.PDU,
    systemId: string,
    messageId: string | null,
    source: string,
    destination: string,
  ): SimSubmission {
    const decoded = pdu.short_message as { message?: string } | undefined;
    const payload = pdu.message_payload as { message?: string } | undefined;
    return {
      messageId,
      session: this.sessionNumbers.get(session) ?? 0,
      systemId,
      source,
      destination,
      dataCoding: Number(pdu.data_coding ?? 0),
      esmClass: Number(pdu.esm_class ?? 0),
      concat: concatOf(pdu),
      payload: typeof payload?.message === 'string',
      sourceTon: Number(pdu.source_addr_ton ?? 0),
      sourceNpi: Number(pdu.source_addr_npi ?? 0),
      destTon: Number(pdu.dest_addr_ton ?? 0),
      destNpi: Number(pdu.dest_addr_npi ?? 0),
      text: typeof payload?.message === 'string' ? payload.message : (decoded?.message ?? ''),
      // The smpp package reads a relative time as a Date that far from its own clock's now.
      validitySeconds:
        pdu.validity_period instanceof Date ? Math.round((pdu.validity_period.getTime() - Date.now()) / 1000) : null,
      status: messageId === null ? smpp.ESME_RINVDSTADR : 0,
      at: Date.now(),
    };
  }

  /** Receipts fall due in submission order, so one timer serves them all instead of a timer each. */
  private scheduleReceipts(): void {
    if (this.receiptTimer || this.receiptQueue.length === 0) return;
    const first = this.receiptQueue[0]!.due;
    this.receiptTimer = this.clock.setTimer(Math.max(0, first - this.clock.nowMs()), () => {
      this.receiptTimer = undefined;
      // The timer fired, so the first receipt is due even on a test clock that stands still.
      const now = Math.max(this.clock.nowMs(), first);
      let i = 0;
      while (i < this.receiptQueue.length && this.receiptQueue[i]!.due <= now) {
        const { session, receipt } = this.receiptQueue[i]!;
        this.sendReceipt(session, receipt);
        i++;
      }
      this.receiptQueue.splice(0, i);
      this.scheduleReceipts();
    });
  }

  private sendReceipt(preferred: smpp.Session, receipt: PendingReceipt): void {
    const session =
      this.bound.has(preferred) && !this.transmitters.has(preferred) ? preferred : this.receiver(receipt.systemId);
    if (!session) {
      this.backlog.push(receipt);
      return;
    }
    receipt.attempts++;
    const pdu = new ShortMessagePdu('deliver_sm', receipt.fields, receipt.tlvs);
    corkUntilNextTick(session.socket);
    if (!session.send(pdu as unknown as smpp.PDU)) {
      this.backlog.push(receipt);
      return;
    }
    this.unacked.get(session)?.set(pdu.sequence_number, receipt);
  }

  private writeId(n: number, form: 'hex' | 'decimal'): string {
    return form === 'hex' ? n.toString(16) : String(n);
  }

  private onReceiptAck(session: smpp.Session, pdu: smpp.PDU): void {
    const pending = this.unacked.get(session);
    const receipt = pending?.get(pdu.sequence_number);
    if (!receipt) return;
    pending!.delete(pdu.sequence_number);
    if (pdu.command_status === 0) this.receiptsAcked++;
    // A temporary error from the ESME: send it again a little later, as SMSCs do.
    else this.timers.later(500, () => this.sendReceipt(session, receipt));
  }

  /** A bound session of the system id that takes deliver_sm (a transceiver or a receiver). */
  private receiver(systemId: string): smpp.Session | undefined {
    return [...this.bound].find(([session, id]) => id === systemId && !this.transmitters.has(session))?.[0];
  }

  private flushBacklog(systemId: string): void {
    const waiting = this.backlog.filter((r) => r.systemId === systemId);
    const session = this.receiver(systemId);
    if (waiting.length === 0 || !session) return;
    for (const receipt of waiting) this.backlog.splice(this.backlog.indexOf(receipt), 1);
    for (const receipt of waiting) this.sendReceipt(session, receipt);
  }
}

/** A part's concatenation: an 8-bit or 16-bit reference UDH (IEI 0x00 or 0x08), or SAR TLVs. */
function concatOf(pdu: smpp.PDU): SimSubmission['concat'] {
  const decoded = pdu.short_message as { udh?: Buffer[] } | undefined;
  for (const h of decoded?.udh ?? []) {
    if (h[0] === 0x00 && h.length >= 5) return { reference: h[2]!, total: h[3]!, sequence: h[4]!, form: 'udh8' };
    if (h[0] === 0x08 && h.length >= 6) {
      return { reference: (h[2]! << 8) | h[3]!, total: h[4]!, sequence: h[5]!, form: 'udh16' };
    }
  }
  if (typeof pdu.sar_msg_ref_num === 'number' && typeof pdu.sar_segment_seqnum === 'number') {
    return {
      reference: pdu.sar_msg_ref_num,
      total: Number(pdu.sar_total_segments ?? 0),
      sequence: pdu.sar_segment_seqnum,
      form: 'sar',
    };
  }
  return null;
}

function receiptText(messageId: string, delivered: boolean, err: string, text = ''): string {
  const now = new Date();
  const date = yymmddhhmm(now);
  return (
    `id:${messageId} sub:001 dlvrd:${delivered ? '001' : '000'} submit date:${date} done date:${date} ` +
    `stat:${delivered ? 'DELIVRD' : 'UNDELIV'} err:${err} text:${text}`
  );
}
