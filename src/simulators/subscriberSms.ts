import { randomInt } from 'node:crypto';
import type smpp from 'smpp';
import { ShortMessagePdu, smsPdus } from '../connectors/index.js';
import { isPlainObject } from '../shared/text.js';
import type { SmscSimulator } from './smscSimulator.js';

/** What `POST /sim/v1/inbound` takes for an SMS. */
export const SUBSCRIBER_SMS_SHAPE = '{channelType: "SMS", from, to, text}';
/** A number or short code, as SMPP 3.4 addresses (source_addr, destination_addr) hold them: at most 20 digits. */
const ADDRESS = /^\+?[0-9]{1,20}$/;
/** The longest text taken: as long as a WhatsApp text (27 GSM parts, 62 UCS-2 parts, within 255). */
export const SUBSCRIBER_SMS_TEXT_LENGTH = 4096;

export type SubscriberSmsAnswer = { parts: number } | { problem: string } | { unavailable: string };

/**
 * A subscriber's SMS (`{channelType: "SMS", from, to, text}`), delivered by the SMSC simulator to the bound ESME as a
 * mobile-originated deliver_sm, or as one per part with an 8-bit concatenation UDH when long (GSM 03.38 text 160/153
 * septets, else UCS-2 70/67: the split Herald uses for its own SMS), each sent once the one before is answered, as
 * SMSCs do. `to` is the number written to: Herald gives the SMS to the account it is assigned to. Answers the parts
 * sent; `problem` for a body that is not such an SMS; `unavailable` when no ESME took it.
 */
export async function deliverSubscriberSms(smsc: SmscSimulator, body: unknown): Promise<SubscriberSmsAnswer> {
  const problem = { problem: `Expected ${SUBSCRIBER_SMS_SHAPE}` };
  if (!isPlainObject(body) || body.channelType !== 'SMS') return problem;
  const { from, to, text } = body;
  const address = (v: unknown): v is string => typeof v === 'string' && ADDRESS.test(v);
  if (!address(from) || !address(to) || typeof text !== 'string') return problem;
  if (text === '' || text.length > SUBSCRIBER_SMS_TEXT_LENGTH)
    return { problem: `Invalid text: 1 to ${SUBSCRIBER_SMS_TEXT_LENGTH} characters` };
  // Any reference: Herald tells messages apart by sender, recipient and reference, and keeps a repeated one apart.
  const parts = smsPdus(text, randomInt(256))!;
  for (const [i, part] of parts.entries()) {
    const pdu = new ShortMessagePdu(
      'deliver_sm',
      {
        source_addr: from.replace(/^\+/, ''),
        source_addr_ton: 1,
        source_addr_npi: 1,
        destination_addr: to.replace(/^\+/, ''),
        dest_addr_ton: 0,
        dest_addr_npi: 1,
        esm_class: part.esm_class,
        registered_delivery: 0,
        data_coding: part.data_coding,
        validity_period: '',
        short_message: part.short_message,
      },
      part.tlvs,
    );
    const answer = await smsc.request(pdu as unknown as smpp.PDU);
    if (!answer) return { unavailable: `no SMPP client took part ${i + 1} of ${parts.length} (none bound?)` };
    if (answer.command_status !== 0)
      return { unavailable: `part ${i + 1} of ${parts.length} refused with command_status ${answer.command_status}` };
  }
  return { parts: parts.length };
}
