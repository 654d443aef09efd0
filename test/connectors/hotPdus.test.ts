import smpp from 'smpp';
import { describe, expect, it } from 'vitest';
import '../../src/shared/smppGsmCoderPatch.js';
import {
  DeliverSmResp,
  receiptTlvs,
  ShortMessagePdu,
  ShortMessageResp,
  SubmitSm,
  type SubmitSmFields,
} from '../../src/connectors/smpp/hotPdus.js';
import { relativeTime, smsPdus, sourceAddress } from '../../src/connectors/smpp/smppMessage.js';

/** The package's own encoding of the same PDU, the reference the direct encoders must match byte for byte. */
function packageBytes(command: string, fields: Record<string, unknown>, sequence: number): Buffer {
  const pdu = new smpp.PDU(command, fields);
  pdu.sequence_number = sequence;
  return pdu.toBuffer();
}

describe('directly encoded submit_sm and deliver_sm_resp', () => {
  const cases: [string, string, string, number | null][] = [
    ['single GSM part', 'Herald', 'Your code is 1234', null],
    ['GSM escapes', 'Shop-1', 'Price: 10€ [net] {ok} ~', 3600],
    ['numeric short code', '4242', 'Hi', 90061],
    ['international number', '79161234567', 'Call me', null],
    ['long UCS-2 with UDH', 'Herald', 'Привет! '.repeat(40), 86_400],
    ['long GSM with UDH', 'Herald', 'x'.repeat(400), 300],
  ];

  it.each(cases)('encodes %s as the package does', (_, sender, text, ttl) => {
    const parts = smsPdus(text, 0x2a)!;
    expect(parts.length).toBeGreaterThan(0);
    for (const [i, part] of parts.entries()) {
      const fields: SubmitSmFields = {
        ...sourceAddress(sender),
        destination_addr: '79161234567',
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        registered_delivery: 1,
        validity_period: ttl ? relativeTime(ttl) : '',
        esm_class: part.esm_class,
        data_coding: part.data_coding,
        short_message: part.short_message,
      };
      const direct = new SubmitSm(fields);
      direct.sequence_number = 1000 + i;
      const { validity_period, ...rest } = fields;
      const reference = packageBytes(
        'submit_sm',
        { ...rest, ...(validity_period ? { validity_period } : {}) },
        1000 + i,
      );
      expect(direct.toBuffer().toString('hex')).toBe(reference.toString('hex'));
      // And the package reads it back as the same message.
      const decoded = new smpp.PDU(direct.toBuffer());
      expect(decoded).toMatchObject({
        command: 'submit_sm',
        sequence_number: 1000 + i,
        source_addr: sender,
        destination_addr: '79161234567',
        data_coding: part.data_coding,
      });
    }
  });

  it('writes a validity period as SMPP relative time, days to seconds', () => {
    expect(relativeTime(90_061)).toBe('000001010101000R');
    expect(relativeTime(3 * 86_400 + 59)).toBe('000003000059000R');
  });

  it('refuses a short_message over 255 octets instead of writing a wrong length', () => {
    const pdu = new SubmitSm({
      ...sourceAddress('Herald'),
      destination_addr: '1',
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      registered_delivery: 1,
      validity_period: '',
      esm_class: 0,
      data_coding: 0,
      short_message: Buffer.alloc(256),
    });
    expect(() => pdu.toBuffer()).toThrow(RangeError);
  });

  it.each([
    ['ok', 0],
    ['a temporary application error', 0x00000064],
  ])('answers a deliver_sm with %s as the package does', (_, status) => {
    const deliver = new smpp.PDU('deliver_sm', { short_message: 'id:1 stat:DELIVRD err:000' });
    deliver.sequence_number = 77;
    const reference = (status ? deliver.response({ command_status: status }) : deliver.response()).toBuffer();
    expect(new DeliverSmResp(77, status).toBuffer().toString('hex')).toBe(reference.toString('hex'));
  });

  it.each([
    ['delivered', 'sim1a2b', 2],
    ['undelivered', 'sim-ff00', 5],
  ])('encodes a %s receipt deliver_sm as the package does', (_, messageId, state) => {
    const text = Buffer.from(
      `id:${messageId} sub:001 dlvrd:001 submit date:2611220201 done date:2611220201 stat:DELIVRD err:000 text:`,
      'ascii',
    );
    const common = {
      source_addr: '79161234567',
      source_addr_ton: 1,
      source_addr_npi: 1,
      destination_addr: 'Herald',
      esm_class: 4,
      data_coding: 0,
    };
    const direct = new ShortMessagePdu(
      'deliver_sm',
      {
        ...common,
        dest_addr_ton: 0,
        dest_addr_npi: 0,
        registered_delivery: 0,
        validity_period: '',
        short_message: text,
      },
      receiptTlvs(messageId, state),
    );
    direct.sequence_number = 9;
    const reference = packageBytes(
      'deliver_sm',
      { ...common, receipted_message_id: messageId, message_state: state, short_message: text },
      9,
    );
    expect(direct.toBuffer().toString('hex')).toBe(reference.toString('hex'));
    expect(new smpp.PDU(direct.toBuffer())).toMatchObject({
      command: 'deliver_sm',
      receipted_message_id: messageId,
      message_state: state,
    });
  });

  it.each([
    ['accepted', 0, 'sim1a2b'],
    ['refused', 0x0b, ''],
  ])('answers a submit_sm %s as the package does', (_, status, messageId) => {
    const submit = new smpp.PDU('submit_sm', { destination_addr: '1', short_message: Buffer.from('x') });
    submit.sequence_number = 12;
    const reference = (
      status ? submit.response({ command_status: status }) : submit.response({ message_id: messageId })
    ).toBuffer();
    expect(new ShortMessageResp('submit_sm_resp', 12, status, messageId).toBuffer().toString('hex')).toBe(
      reference.toString('hex'),
    );
  });

  it('keeps one GSM table per encoding, and receipts still decode with it', () => {
    expect(smpp.gsmCoder.getCoder(0)).toBe(smpp.gsmCoder.getCoder(0));
    expect(smpp.gsmCoder.getCoder(3)).not.toBe(smpp.gsmCoder.getCoder(0));
    const deliver = new smpp.PDU('deliver_sm', {
      esm_class: 4,
      data_coding: 0,
      short_message: 'id:7 stat:DELIVRD err:000 text:{€}',
    });
    deliver.sequence_number = 5;
    const decoded = new smpp.PDU(deliver.toBuffer());
    expect((decoded.short_message as { message: string }).message).toBe('id:7 stat:DELIVRD err:000 text:{€}');
  });
});

describe('submit_sm with the long-message options', () => {
  it.each(['udh16', 'sar', 'payload'] as const)('encodes %s parts as the package reads them', (longMessages) => {
    const text = 'y'.repeat(400);
    const parts = smsPdus(text, 0x1234, { dataCoding: 0, ucs2: true, longMessages })!;
    const decoded = parts.map((part, i) => {
      const pdu = new SubmitSm(
        {
          ...sourceAddress('Herald'),
          destination_addr: '79161234567',
          dest_addr_ton: 1,
          dest_addr_npi: 1,
          registered_delivery: 1,
          validity_period: '',
          esm_class: part.esm_class,
          data_coding: part.data_coding,
          short_message: part.short_message,
        },
        part.tlvs,
      );
      pdu.sequence_number = i + 1;
      return new smpp.PDU(pdu.toBuffer());
    });
    if (longMessages === 'payload') {
      expect(decoded).toHaveLength(1);
      expect((decoded[0]!.message_payload as { message: string }).message).toBe(text);
      return;
    }
    expect(decoded).toHaveLength(3);
    if (longMessages === 'sar') {
      expect(decoded.map((p) => [p.sar_msg_ref_num, p.sar_total_segments, p.sar_segment_seqnum])).toEqual([
        [0x1234, 3, 1],
        [0x1234, 3, 2],
        [0x1234, 3, 3],
      ]);
    } else {
      const udh = decoded.map((p) => (p.short_message as { udh: Buffer[] }).udh[0]!.toString('hex'));
      expect(udh).toEqual(['0804123403' + '01', '0804123403' + '02', '0804123403' + '03']);
    }
    expect(decoded.map((p) => (p.short_message as { message: string }).message).join('')).toBe(text);
  });
});
