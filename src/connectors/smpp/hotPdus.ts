/**
 * The two PDUs an SMPP session sends for every message, encoded directly: submit_sm and deliver_sm_resp. The
 * `smpp` package's generic encoder walks every field and filter per PDU, which at 10,000 messages a second is
 * a tenth of the process's time. These objects are what `Session.send` needs of a PDU (command, sequence number,
 * isResponse, toBuffer), so the session, its sequence numbers and its response callbacks stay the package's own;
 * test/connectors/hotPdus.test.ts checks the bytes against the package's encoder.
 */

const HEADER = 16;
const SUBMIT_SM = 0x00000004;
const DELIVER_SM_RESP = 0x80000005;

export interface SubmitSmFields {
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

/** A submit_sm (SMPP 3.4, 4.4.1) with the fields Herald sets; the others are 0 or empty. */
export class SubmitSm {
  readonly command = 'submit_sm';
  readonly command_status = 0;
  sequence_number = 0;

  constructor(readonly fields: SubmitSmFields) {}

  isResponse(): boolean {
    return false;
  }

  toBuffer(): Buffer {
    const f = this.fields;
    if (f.short_message.length > 255) throw new RangeError('short_message longer than 255 octets');
    const length =
      HEADER +
      1 + // service_type ''
      2 + f.source_addr.length + 1 +
      2 + f.destination_addr.length + 1 +
      3 + // esm_class, protocol_id, priority_flag
      1 + // schedule_delivery_time ''
      f.validity_period.length + 1 +
      5 + // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id, sm_length
      f.short_message.length;
    const b = Buffer.allocUnsafe(length);
    b.writeUInt32BE(length, 0);
    b.writeUInt32BE(SUBMIT_SM, 4);
    b.writeUInt32BE(0, 8);
    b.writeUInt32BE(this.sequence_number, 12);
    let o = HEADER;
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
    f.short_message.copy(b, o);
    return b;
  }
}

/** The answer to a deliver_sm: a header and an empty message_id. */
export class DeliverSmResp {
  readonly command = 'deliver_sm_resp';

  constructor(
    readonly sequence_number: number,
    readonly command_status: number = 0,
  ) {}

  isResponse(): boolean {
    return true;
  }

  toBuffer(): Buffer {
    // A response with an error status carries no body (SMPP 3.4, 3.2: the package encodes it so too).
    const length = this.command_status === 0 ? HEADER + 1 : HEADER;
    const b = Buffer.allocUnsafe(length);
    b.writeUInt32BE(length, 0);
    b.writeUInt32BE(DELIVER_SM_RESP, 4);
    b.writeUInt32BE(this.command_status, 8);
    b.writeUInt32BE(this.sequence_number, 12);
    if (length > HEADER) b[HEADER] = 0;
    return b;
  }
}

/** An ASCII C-octet string (addresses and times are ASCII by the protocol). */
function cstring(b: Buffer, offset: number, value: string): number {
  const end = offset + b.write(value, offset, 'latin1');
  b[end] = 0;
  return end + 1;
}
