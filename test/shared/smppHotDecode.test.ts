import { Readable } from 'node:stream';
import fc from 'fast-check';
import smpp from 'smpp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/shared/smppGsmCoderPatch.js';
import '../../src/smppServer/smppTimePatch.js';
import '../../src/shared/smppHotDecode.js';

/** A PDU through the sessions' way in (length octets, then the body from a stream), or what it threw. */
function throughStream(pdu: Buffer): unknown {
  const stream = new Readable({ read: () => undefined });
  stream.push(pdu);
  try {
    const length = smpp.PDU.commandLength(stream);
    return length === false ? false : smpp.PDU.fromStream(stream, length);
  } catch (e) {
    return e;
  }
}

/** The package's own decoding of the whole PDU, or what it threw. */
function byPackage(pdu: Buffer): unknown {
  try {
    return new smpp.PDU(pdu);
  } catch (e) {
    return e;
  }
}

function expectSame(pdu: Buffer): void {
  const expected = byPackage(pdu);
  const actual = throughStream(pdu);
  if (expected instanceof Error) {
    // The same kind of error (its offsets are into the body here, into the whole PDU there).
    expect(actual).toBeInstanceOf(expected.constructor);
    expect((actual as { code?: string }).code).toBe((expected as { code?: string }).code);
    return;
  }
  expect(Object.getPrototypeOf(actual)).toBe(smpp.PDU.prototype);
  // The same properties in the same order, with the same values.
  expect(Object.keys(actual as object)).toEqual(Object.keys(expected as object));
  expect(actual).toEqual(expected);
}

const cstring = (text: string): Buffer => Buffer.concat([Buffer.from(text, 'latin1'), Buffer.from([0])]);
const octet = fc.integer({ min: 0, max: 255 });
const text = (max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.integer({ min: 1, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: max });
const time = fc.oneof(
  fc.constant(''),
  fc.constant('261130101500000+'),
  fc.constant('261201093000012-'),
  fc.constant('000001000000000R'),
  text(16),
);
/** Optional parameters: known ones of each value type, one with a filter (message_payload), an unknown one. */
const tlv = fc.oneof(
  text(64).map((id) => ({ tag: 0x001e, value: cstring(id) })),
  octet.map((state) => ({ tag: 0x0427, value: Buffer.from([state]) })),
  fc.integer({ min: 0, max: 0xffff }).map((ref) => ({ tag: 0x020c, value: Buffer.from([ref >> 8, ref & 0xff]) })),
  octet.map((n) => ({ tag: 0x020e, value: Buffer.from([n]) })),
  octet.map((n) => ({ tag: 0x020f, value: Buffer.from([n]) })),
  fc.uint8Array({ maxLength: 300 }).map((payload) => ({ tag: 0x0424, value: Buffer.from(payload) })),
  fc.uint8Array({ maxLength: 8 }).map((value) => ({ tag: 0x1401, value: Buffer.from(value) })),
);

function tlvOctets(t: { tag: number; value: Buffer }): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(t.tag, 0);
  head.writeUInt16BE(t.value.length, 2);
  return Buffer.concat([head, t.value]);
}

function pdu(commandId: number, status: number, sequence: number, body: Buffer): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(16 + body.length, 0);
  head.writeUInt32BE(commandId, 4);
  head.writeUInt32BE(status, 8);
  head.writeUInt32BE(sequence, 12);
  return Buffer.concat([head, body]);
}

const shortMessage = fc
  .record({
    command: fc.constantFrom(0x00000004, 0x00000005),
    status: fc.constantFrom(0, 0, 8),
    sequence: fc.integer({ min: 1, max: 0x7fffffff }),
    serviceType: text(5),
    sourceTon: octet,
    sourceNpi: octet,
    source: text(21),
    destTon: octet,
    destNpi: octet,
    destination: text(21),
    esmClass: fc.constantFrom(0, 0x04, 0x40, 0x43),
    protocolId: octet,
    priority: octet,
    schedule: time,
    validity: time,
    registered: octet,
    replace: octet,
    dataCoding: fc.constantFrom(0, 1, 3, 4, 8, 0xf0),
    defaultId: octet,
    message: fc.oneof(
      fc.uint8Array({ maxLength: 254 }),
      text(160).map((t) => new Uint8Array(Buffer.from(t, 'latin1'))),
      // A UDH of a concatenated part (IEI 0x00) ahead of the text.
      text(150).map((t) => new Uint8Array(Buffer.concat([Buffer.from([5, 0, 3, 7, 2, 1]), Buffer.from(t, 'latin1')]))),
    ),
    tlvs: fc.array(tlv, { maxLength: 4 }),
  })
  .map((f) =>
    pdu(
      f.command,
      f.status,
      f.sequence,
      Buffer.concat([
        cstring(f.serviceType),
        Buffer.from([f.sourceTon, f.sourceNpi]),
        cstring(f.source),
        Buffer.from([f.destTon, f.destNpi]),
        cstring(f.destination),
        Buffer.from([f.esmClass, f.protocolId, f.priority]),
        cstring(f.schedule),
        cstring(f.validity),
        Buffer.from([f.registered, f.replace, f.dataCoding, f.defaultId, f.message.length]),
        Buffer.from(f.message),
        ...f.tlvs.map(tlvOctets),
      ]),
    ),
  );

const response = fc
  .record({
    command: fc.constantFrom(0x80000004, 0x80000005),
    status: fc.constantFrom(0, 0, 0x45),
    sequence: fc.integer({ min: 1, max: 0x7fffffff }),
    messageId: fc.option(text(64)),
    tlvs: fc.array(tlv, { maxLength: 2 }),
  })
  .map((f) =>
    pdu(
      f.command,
      f.status,
      f.sequence,
      Buffer.concat([f.messageId === null ? Buffer.alloc(0) : cstring(f.messageId), ...f.tlvs.map(tlvOctets)]),
    ),
  );

/** The same PDU cut short (its length octets saying so), or with its octets after the header changed at random. */
const damaged = (whole: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> =>
  fc.tuple(whole, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([b, n, noise]) => {
    const cut = Buffer.from(b.subarray(0, 16 + (n % Math.max(1, b.length - 15))));
    cut.writeUInt32BE(cut.length, 0);
    if (n % 2 === 0) return cut;
    const changed = Buffer.from(b);
    noise.forEach((v, i) => {
      const at = 16 + ((n + i * 31) % Math.max(1, changed.length - 16));
      if (at < changed.length) changed[at] = v;
    });
    return changed;
  });

describe('submit_sm, deliver_sm and their responses decoded where they lie', () => {
  // Relative SMPP times are read from the clock when decoded: one instant for both ways.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-30T08:00:00.000Z'));
  });
  afterAll(() => vi.useRealTimers());

  it("give the package's PDU for any fields, texts and optional parameters", () => {
    fc.assert(fc.property(shortMessage, expectSame), { numRuns: 3000 });
  });

  it('give it for responses with and without a message id, accepted or refused', () => {
    fc.assert(fc.property(response, expectSame), { numRuns: 1000 });
  });

  it('give it, or the same error, for PDUs cut short or with changed octets', () => {
    fc.assert(fc.property(damaged(fc.oneof(shortMessage, response)), expectSame), { numRuns: 3000 });
  });

  it('read a receipt as the connector reads it', () => {
    const receipt =
      'id:0123456789 sub:001 dlvrd:001 submit date:2611300101 done date:2611300102 stat:DELIVRD err:000 text:Hi';
    const sent = new smpp.PDU('deliver_sm', {
      sequence_number: 9,
      source_addr: '79001234567',
      destination_addr: 'HERALD',
      esm_class: 4,
      short_message: receipt,
      receipted_message_id: '0123456789',
      message_state: 2,
    });
    const decoded = throughStream(sent.toBuffer()) as smpp.PDU;
    expect(decoded.command).toBe('deliver_sm');
    expect(decoded.sequence_number).toBe(9);
    expect(decoded.short_message).toEqual({ message: receipt });
    expect(decoded.receipted_message_id).toBe('0123456789');
    expect(decoded.message_state).toBe(2);
    expect(decoded.response().command).toBe('deliver_sm_resp');
    expectSame(sent.toBuffer());
  });

  it('decode the four commands themselves and leave the rest to the package', () => {
    const packageDecodes = vi.spyOn(smpp.PDU.prototype, 'fromBuffer');
    try {
      throughStream(new smpp.PDU('submit_sm', { destination_addr: '79001234567', short_message: 'Hi' }).toBuffer());
      throughStream(new smpp.PDU('deliver_sm', { short_message: 'id:1 stat:DELIVRD', message_state: 2 }).toBuffer());
      throughStream(new smpp.PDU('submit_sm_resp', { message_id: '1' }).toBuffer());
      throughStream(new smpp.PDU('deliver_sm_resp', {}).toBuffer());
      expect(packageDecodes).not.toHaveBeenCalled();
      // A filtered TLV (the text in message_payload), and a command of the rest.
      throughStream(new smpp.PDU('submit_sm', { destination_addr: '1', message_payload: 'Hi' }).toBuffer());
      throughStream(new smpp.PDU('enquire_link', {}).toBuffer());
      expect(packageDecodes).toHaveBeenCalledTimes(2);
    } finally {
      packageDecodes.mockRestore();
    }
  });
});
