import smpp from 'smpp';
import { replacing } from '../util/replaced.js';

/**
 * The PDUs that arrive once per message (submit_sm and deliver_sm, and their responses), decoded directly. The
 * `smpp` package reads each PDU's length, then its body, copies the two into a new buffer and decodes that by
 * walking its field table and then every property of the result for filters: 1.3-6.8 µs a PDU here, against
 * 0.3-1.4 read directly (a receipt's deliver_sm the most, its text's decoding included). This reads the body where
 * it lies, its fields in the package's order with the package's own readers and filters, and gives the package's
 * PDU object (same prototype, same properties in the same order), so sessions, events and responses stay the
 * package's own. Anything else (another command, a TLV with a filter, more than one of a TLV) takes the package's
 * way. Imported for this effect by the modules that use the package; test/shared/smppHotDecode.test.ts holds the
 * two ways to equal results.
 */
const { PDU, filters, tlvsById } = smpp;

const SUBMIT_SM = 0x00000004;
const DELIVER_SM = 0x00000005;
const SUBMIT_SM_RESP = 0x80000004;
const DELIVER_SM_RESP = 0x80000005;
const RECEIPTED_MESSAGE_ID = 0x001e;
const MESSAGE_STATE = 0x0427;

/** A PDU of `command` with its header: every PDU starts with these, in this order, as the package sets them. */
function header(length: number, id: number, body: Buffer, command: string): smpp.PDU {
  const pdu = Object.create(PDU.prototype) as smpp.PDU;
  pdu.command_length = length;
  pdu.command_id = id;
  pdu.command_status = body.readUInt32BE(4);
  pdu.sequence_number = body.readUInt32BE(8);
  pdu.command = command;
  return pdu;
}

/** The C-octet string at `at` (the package's cstring read: to the first NUL or the end). */
function cstring(body: Buffer, at: number): string {
  let end = at;
  while (body[end]) end++;
  return body.toString('ascii', at, end);
}

/**
 * A submit_sm's or deliver_sm's fields from the body (the PDU less its length octets), as the package's loop reads
 * them: each only while the PDU has octets left. Returns where the optional parameters start. Written out field by
 * field: a store by a computed name (a table of fields in a loop) costs a receipt a microsecond.
 */
function shortMessage(pdu: smpp.PDU, body: Buffer, end: number): number {
  let o = 12;
  let s: string;
  if (o >= end) return o;
  pdu.service_type = s = cstring(body, o);
  o += s.length + 1;
  if (o >= end) return o;
  pdu.source_addr_ton = body[o++];
  if (o >= end) return o;
  pdu.source_addr_npi = body[o++];
  if (o >= end) return o;
  pdu.source_addr = s = cstring(body, o);
  o += s.length + 1;
  if (o >= end) return o;
  pdu.dest_addr_ton = body[o++];
  if (o >= end) return o;
  pdu.dest_addr_npi = body[o++];
  if (o >= end) return o;
  pdu.destination_addr = s = cstring(body, o);
  o += s.length + 1;
  if (o >= end) return o;
  pdu.esm_class = body[o++];
  if (o >= end) return o;
  pdu.protocol_id = body[o++];
  if (o >= end) return o;
  pdu.priority_flag = body[o++];
  if (o >= end) return o;
  pdu.schedule_delivery_time = s = cstring(body, o);
  o += s.length + 1;
  if (o >= end) return o;
  pdu.validity_period = s = cstring(body, o);
  o += s.length + 1;
  if (o >= end) return o;
  pdu.registered_delivery = body[o++];
  if (o >= end) return o;
  pdu.replace_if_present_flag = body[o++];
  if (o >= end) return o;
  pdu.data_coding = body[o++];
  if (o >= end) return o;
  pdu.sm_default_msg_id = body[o++];
  if (o >= end) return o;
  const text = body.subarray(o + 1, o + 1 + body[o]!);
  pdu.short_message = text;
  // Past what the PDU holds when its length says more, as the package counts it.
  return o + 1 + text.length;
}

/**
 * The optional parameters from `o` to `end`, as the package reads them (its own value readers); false if one needs
 * what only the package does with it (a filter, a list of repeated values), which then decodes the PDU itself.
 */
function optionalParameters(pdu: smpp.PDU, body: Buffer, o: number, end: number): boolean {
  while (o + 4 <= end) {
    const id = body.readUInt16BE(o);
    const length = body.readUInt16BE(o + 2);
    o += 4;
    // A receipt's two, read as the package's readers do (to the first NUL; one octet, or its RangeError past the
    // end) but stored by name: a store by a computed name was a microsecond a receipt.
    if (id === RECEIPTED_MESSAGE_ID) {
      pdu.receipted_message_id = cstring(body, o);
      o += length;
      continue;
    }
    if (id === MESSAGE_STATE) {
      pdu.message_state = body.readUInt8(o);
      o += length;
      continue;
    }
    const tlv = tlvsById[id];
    if (tlv === undefined) {
      pdu[id] = body.subarray(o, o + length);
    } else {
      if (tlv.filter !== undefined || tlv.multiple) return false;
      pdu[tlv.tag] = tlv.type.read(body, o, length);
    }
    o += length;
  }
  return true;
}

/** The decoded PDU, or undefined where the package must decode it. */
function decodeHot(length: number, body: Buffer): smpp.PDU | undefined {
  const id = body.readUInt32BE(0);
  // Offsets below are into the body, which starts 4 octets into the PDU: the PDU's end is at length - 4.
  const end = length - 4;
  if (id === SUBMIT_SM_RESP || id === DELIVER_SM_RESP) {
    const pdu = header(length, id, body, id === SUBMIT_SM_RESP ? 'submit_sm_resp' : 'deliver_sm_resp');
    let o = 12;
    if (o < end) {
      const messageId = cstring(body, o);
      pdu.message_id = messageId;
      o += messageId.length + 1;
    }
    return optionalParameters(pdu, body, o, end) ? pdu : undefined;
  }
  if (id !== SUBMIT_SM && id !== DELIVER_SM) return undefined;
  const pdu = header(length, id, body, id === SUBMIT_SM ? 'submit_sm' : 'deliver_sm');
  const o = shortMessage(pdu, body, end);
  if (!optionalParameters(pdu, body, o, end)) return undefined;
  // The package's filters, in its order (the properties' own): the two times, then the text.
  const { time, message } = filters;
  if (pdu.schedule_delivery_time) pdu.schedule_delivery_time = time.decode.call(pdu, pdu.schedule_delivery_time);
  if (pdu.validity_period) pdu.validity_period = time.decode.call(pdu, pdu.validity_period);
  if (pdu.short_message !== undefined) pdu.short_message = message.decode.call(pdu, pdu.short_message);
  return pdu;
}

PDU.fromStream = replacing(
  PDU.fromStream,
  (fromStream) =>
    function (this: unknown, stream: NodeJS.ReadableStream, length: number): smpp.PDU | false {
      // Short or malformed headers keep the package's handling (and its errors).
      if (length < 16) return fromStream.call(this, stream, length);
      const body = stream.read(length - 4) as Buffer | null;
      if (body === null) return false;
      const pdu = decodeHot(length, body);
      if (pdu !== undefined) return pdu;
      const whole = Buffer.allocUnsafe(length);
      whole.writeUInt32BE(length, 0);
      body.copy(whole, 4);
      return new PDU(whole);
    },
);
