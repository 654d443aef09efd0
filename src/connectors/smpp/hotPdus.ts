/**
 * The PDUs sent once per message, encoded directly: submit_sm and deliver_sm, and their responses. The `smpp`
 * package's generic encoder walks every field and filter per PDU, which at 10,000 messages a second is a tenth of
 * a process's time. These objects are what `Session.send` needs of a PDU (command, sequence number, isResponse,
 * toBuffer), so sessions, sequence numbers and response callbacks stay the package's own;
 * test/connectors/hotPdus.test.ts checks every byte against the package's encoder.
 */

const HEADER = 16;
const COMMAND_ID = {
  submit_sm: 0x00000004,
  deliver_sm: 0x00000005,
  submit_sm_resp: 0x80000004,
  deliver_sm_resp: 0x80000005,
} as const;

/** Optional parameters (SMPP 3.4, 5.3.2) a receipt carries. */
export const TLV = { receipted_message_id: 0x001e, message_state: 0x0427 } as const;

export interface ShortMessageFields {
  readonly source_addr: string;
  readonly source_addr_ton: number;
  readonly source_addr_npi: number;
  readonly destination_addr: string;
  readonly dest_addr_ton: number;
  readonly dest_addr_npi: number;
  readonly esm_class: number;
  readonly registered_delivery: number;
  readonly data_coding: number;
  /** Relative or absolute SMPP time, '' for the SMSC default. */
  readonly validity_period: string;
  readonly short_message: Buffer;
}
export type SubmitSmFields = ShortMessageFields;

export interface Tlv {
  readonly tag: number;
  readonly value: Buffer;
}

/** A submit_sm or deliver_sm (SMPP 3.4, 4.4.1 and 4.6.1) with the fields Herald sets; the others are 0 or empty. */
export class ShortMessagePdu {
  readonly command_status = 0;
  sequence_number = 0;

  constructor(
    readonly command: 'submit_sm' | 'deliver_sm',
    readonly fields: ShortMessageFields,
    readonly tlvs: readonly Tlv[] = [],
  ) {}

  isResponse(): boolean {
    return false;
  }

  toBuffer(): Buffer {
    const f = this.fields;
    if (f.short_message.length > 255) throw new RangeError('short_message longer than 255 octets');
    let length =
      HEADER +
      1 + // service_type ''
      2 +
      f.source_addr.length +
      1 +
      2 +
      f.destination_addr.length +
      1 +
      3 + // esm_class, protocol_id, priority_flag
      1 + // schedule_delivery_time ''
      f.validity_period.length +
      1 +
      5 + // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id, sm_length
      f.short_message.length;
    for (const tlv of this.tlvs) length += 4 + tlv.value.length;
    const b = Buffer.allocUnsafe(length);
    let o = header(b, length, COMMAND_ID[this.command], 0, this.sequence_number);
    b[o++] = 0;
    b[o++] = f.source_addr_ton;
    b[o++] = f.source_addr_npi;
    o = cstring(b, o, f.source_addr);
    b[o++] = f.dest_addr_ton;
    b[o++] = f.dest_addr_npi;
    o = cstring(b, o, f.destination_addr);
    b[o++] = f.esm_class;
    b[o++] = 0;
    b[o++] = 0;
    b[o++] = 0;
    o = cstring(b, o, f.validity_period);
    b[o++] = f.registered_delivery;
    b[o++] = 0;
    b[o++] = f.data_coding;
    b[o++] = 0;
    b[o++] = f.short_message.length;
    o += f.short_message.copy(b, o);
    writeTlvs(b, o, this.tlvs);
    return b;
  }
}

/** A submit_sm (the ESME's side). */
export class SubmitSm extends ShortMessagePdu {
  constructor(fields: SubmitSmFields, tlvs: readonly Tlv[] = []) {
    super('submit_sm', fields, tlvs);
  }
}

/** The TLVs of a delivery receipt: the carrier's message id and its final state. */
export function receiptTlvs(messageId: string, state: number): Tlv[] {
  return [
    { tag: TLV.receipted_message_id, value: Buffer.from(`${messageId}\0`, 'latin1') },
    { tag: TLV.message_state, value: Buffer.from([state]) },
  ];
}

/**
 * The fields of a delivery receipt's deliver_sm (esm_class 0x04; 0x20 an intermediate one) from the subscriber's
 * number to the sender, its text the SMPP 3.4 appendix B receipt: what an SMSC sends Herald and what Herald's SMPP
 * server sends its clients.
 */
export function receiptFields(
  from: { readonly addr: string; readonly ton: number; readonly npi: number },
  to: string,
  text: Buffer,
  esmClass = 0x04,
): ShortMessageFields {
  return {
    source_addr: from.addr,
    source_addr_ton: from.ton,
    source_addr_npi: from.npi,
    destination_addr: to,
    dest_addr_ton: 0,
    dest_addr_npi: 0,
    esm_class: esmClass,
    registered_delivery: 0,
    data_coding: 0,
    validity_period: '',
    short_message: text,
  };
}

/**
 * A submit_sm_resp or deliver_sm_resp: the header and a message id (empty for deliver_sm_resp). A response with
 * an error status carries no body (SMPP 3.4, 3.2; the package encodes it so too).
 */
export class ShortMessageResp {
  constructor(
    readonly command: 'submit_sm_resp' | 'deliver_sm_resp',
    readonly sequence_number: number,
    readonly command_status: number = 0,
    readonly message_id = '',
    /**
     * Optional parameters after the message id, written whatever the status (SMPP 5.0 allows them on an error; a
     * 3.4 client reads the header first): a server's own vendor TLV.
     */
    readonly tlvs: readonly Tlv[] = [],
  ) {}

  isResponse(): boolean {
    return true;
  }

  toBuffer(): Buffer {
    const body = this.command_status === 0 || this.tlvs.length > 0;
    let length = body ? HEADER + this.message_id.length + 1 : HEADER;
    for (const tlv of this.tlvs) length += 4 + tlv.value.length;
    const b = Buffer.allocUnsafe(length);
    let o = header(b, length, COMMAND_ID[this.command], this.command_status, this.sequence_number);
    if (body) o = cstring(b, o, this.message_id);
    writeTlvs(b, o, this.tlvs);
    return b;
  }
}

/** The answer to a deliver_sm. */
export class DeliverSmResp extends ShortMessageResp {
  constructor(sequence: number, status = 0) {
    super('deliver_sm_resp', sequence, status);
  }
}

/** Writes the TLVs from `offset` on (tag, length, value each). */
function writeTlvs(b: Buffer, offset: number, tlvs: readonly Tlv[]): void {
  let o = offset;
  for (const tlv of tlvs) {
    b.writeUInt16BE(tlv.tag, o);
    b.writeUInt16BE(tlv.value.length, o + 2);
    o += 4 + tlv.value.copy(b, o + 4);
  }
}

function header(b: Buffer, length: number, commandId: number, status: number, sequence: number): number {
  b.writeUInt32BE(length, 0);
  b.writeUInt32BE(commandId, 4);
  b.writeUInt32BE(status, 8);
  b.writeUInt32BE(sequence, 12);
  return HEADER;
}

/** An ASCII C-octet string (addresses, ids and times are ASCII by the protocol). */
function cstring(b: Buffer, offset: number, value: string): number {
  const end = offset + b.write(value, offset, 'latin1');
  b[end] = 0;
  return end + 1;
}
