import smpp from 'smpp';
import { describe, expect, it } from 'vitest';
import '../../src/shared/smppGsmCoderPatch.js';
import '../../src/smppServer/smppTimePatch.js';
import { deliverSmOf, receiptText, type SmppReceipt } from '../../src/smppServer/receiptDelivery.js';

/** A final event of a message as callbackSmppPostEvents reads it, with its message's facts (messageReceiptFacts). */
const event = (
  status: string,
  errorCode: number | null,
  content: unknown = 'Your code is 1234',
  name = status === 'sent' ? 'sent' : 'delivered',
): SmppReceipt => ({
  event_id: 7,
  account_id: 1,
  message_id: '019a21fc-4b1e-7c3d-9e2f-0123456789ab',
  event: name,
  status,
  at: new Date('2026-11-29T09:15:00Z'),
  error_code: errorCode,
  message: {
    direction: 'outbound',
    created_at: new Date('2026-11-29T09:14:58Z'),
    sender_name: 'Herald',
    destination: '79161234567',
    content,
  },
});

// A receipt is encoded directly (connectors' hot PDUs); the package's encoder of the same fields is the reference,
// byte for byte, and the package reads it back as the receipt it is.
describe('the receipt deliver_sm, encoded directly', () => {
  it.each([
    ['delivered', 'delivered', null, 2],
    ['undelivered with a carrier code', 'undelivered', 9005, 5],
    ['unsent', 'unsent', 453, 8],
    ['intermediate (handed to a carrier)', 'sent', null, 1],
  ] as const)('%s: the same bytes as the smpp package writes', (_, status, code, state) => {
    const e = event(status, code);
    const esmClass = status === 'sent' ? 0x20 : 0x04;
    const direct = deliverSmOf(e)!;
    direct.sequence_number = 4242;
    const reference = new smpp.PDU('deliver_sm', {
      source_addr: '79161234567',
      destination_addr: 'Herald',
      esm_class: esmClass,
      data_coding: 0,
      short_message: Buffer.from(receiptText(e), 'latin1'),
      receipted_message_id: e.message_id,
      message_state: state,
    });
    reference.sequence_number = 4242;
    expect(direct.toBuffer().toString('hex')).toBe(reference.toBuffer().toString('hex'));

    const decoded = new smpp.PDU(direct.toBuffer());
    expect(decoded).toMatchObject({
      command: 'deliver_sm',
      sequence_number: 4242,
      source_addr: '79161234567',
      destination_addr: 'Herald',
      esm_class: esmClass,
      receipted_message_id: e.message_id,
      message_state: state,
    });
    expect(String((decoded.short_message as { message: string }).message)).toContain(`id:${e.message_id} `);
    // Its dates, YYMMDDhhmm in UTC: submitted when the message was created, done at the final status.
    expect(receiptText(e)).toContain(' submit date:2611290914 done date:2611290915 ');
  });

  it('keeps a text with signs outside ASCII as question marks, within one PDU', () => {
    const direct = deliverSmOf(event('delivered', null, 'Привет, ваш код 1234, он действует 5 минут'))!;
    const decoded = new smpp.PDU(direct.toBuffer());
    expect(String((decoded.short_message as { message: string }).message)).toMatch(/text:\?{6}, \?{3} \?{3} 1234$/);
  });
});
