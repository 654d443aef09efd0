import type { Logger } from 'pino';
import type smpp from 'smpp';
import type { Clock } from '../../util/clock.js';
import type { CarrierReceipt, ReceiptSink } from '../connector.js';
import { type ReceiptIdForm, receiptId } from './carrierIds.js';
import { DeliverSmResp } from './hotPdus.js';
import { type MoPart, moPartOf } from './moParts.js';
import { MultipartReceipts } from './multipartReceipts.js';
import type { SiblingConnectors } from './siblingConnectors.js';
import { SMPP_STATUS } from './smppErrors.js';
import { ESM_MESSAGE_TYPE, parseReceipt } from './smppMessage.js';
import type { SmppLink, SmppSession } from './smppSession.js';

/** A subscriber's SMS as the SMSC delivered it. */
export interface SmsInbound {
  /** The subscriber's number (source_addr). */
  readonly from: string;
  /** The number or short code written to (destination_addr). */
  readonly to: string;
  readonly text: string;
  readonly at: Date;
  /** For one part of a long SMS: which (the inbound sink keeps it until the others came). */
  readonly part?: MoPart;
}

/**
 * Stores inbound SMS, and the parts of long ones (reassembled durably by the sink); resolves once they are committed:
 * the SMSC's deliver_sm is answered then, so an answered SMS or part survives a restart.
 */
export type SmsInboundSink = (connectorId: string, messages: readonly SmsInbound[]) => Promise<void>;

/** Inbound SMS kept in memory for the operator while no inbound storage takes them. */
const KEPT_INBOUND = 1000;

/**
 * What an SMPP connector's SMSC delivers to it, on any of its binds: receipts (matched to the parts it submitted,
 * see {@link MultipartReceipts}), notifications, and subscribers' SMS and the parts of long ones (handed to the inbound
 * sink, which reassembles them).
 */
export class SmppDeliveries {
  private readonly keptInbound: SmsInbound[] = [];
  private readonly multipart: MultipartReceipts;

  constructor(
    private readonly id: string,
    private readonly receiptIds: ReceiptIdForm,
    private readonly sink: ReceiptSink,
    private readonly inbound: SmsInboundSink | undefined,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly siblings?: SiblingConnectors,
  ) {
    this.multipart = new MultipartReceipts(clock, (receipts) =>
      this.sink(receipts).catch((error: unknown) =>
        this.log.error({ connector: this.id, err: error }, 'receipts of the other parts not recorded'),
      ),
    );
  }

  /** Remembers the carrier ids of a multi-part message's parts (for an SMSC that reports it once). */
  remember(carrierIds: readonly string[]): void {
    this.multipart.remember(carrierIds);
  }

  /** Ends every wait (the parts of incomplete inbound messages are the sink's, kept across restarts). */
  stop(): void {
    this.multipart.clear();
  }

  /**
   * A deliver_sm or data_sm: a final receipt is recorded first and acknowledged after (a failure to record asks the
   * SMSC to send it again); an intermediate notification or an SME acknowledgement is only acknowledged; anything
   * else is a mobile-originated SMS, handed to the inbound sink.
   */
  take(session: SmppSession, link: SmppLink, pdu: smpp.PDU): void {
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
    const carrierId = receiptId(parsed.carrierId, this.receiptIds);
    const receipt: CarrierReceipt = {
      // A sibling connector to the same SMSC account may have submitted it.
      connectorId: this.siblings?.owner(carrierId, true) ?? this.id,
      carrierId,
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
   * A subscriber's SMS, or a part of a long one: acknowledged once stored (else the SMSC is asked to send it again).
   * An SMSC may send no part before the previous one is answered, so each part is stored on its own and the message
   * reassembled by the inbound sink.
   */
  private onMobileOriginated(
    session: SmppSession,
    link: SmppLink,
    pdu: smpp.PDU,
    text: string,
    ack: (status?: number) => unknown,
  ): void {
    const from = String(pdu.source_addr ?? '');
    const to = String(pdu.destination_addr ?? '');
    const part = moPartOf(udhOf(pdu), pdu);
    const inbound: SmsInbound = { from, to, text, at: this.clock.now(), ...(part && part.total > 1 ? { part } : {}) };
    this.storeInbound(inbound).then(
      () => session.respond(link, ack()),
      (error: unknown) => {
        this.log.error({ connector: this.id, err: error }, 'inbound SMS not stored; asking the SMSC to resend');
        session.respond(link, ack(SMPP_STATUS.RX_T_APPN));
      },
    );
  }

  /**
   * Hands an inbound SMS (or part) to the inbound sink; without one it is logged in full and kept in memory for the
   * operator (the last {@link KEPT_INBOUND}), parts as they came.
   */
  private async storeInbound(message: SmsInbound): Promise<void> {
    if (this.inbound) return this.inbound(this.id, [message]);
    this.log.warn({ connector: this.id, inbound: message }, 'inbound SMS kept in the log: no inbound SMS storage');
    this.keptInbound.push(message);
    if (this.keptInbound.length > KEPT_INBOUND) this.keptInbound.shift();
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

/** The UDH the package decoded from short_message or message_payload, if any. */
function udhOf(pdu: smpp.PDU): Buffer[] | undefined {
  for (const field of [pdu.short_message, pdu.message_payload]) {
    const udh = field && !Buffer.isBuffer(field) ? (field as { udh?: Buffer[] }).udh : undefined;
    if (udh && udh.length > 0) return udh;
  }
  return undefined;
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
