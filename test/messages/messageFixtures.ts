import type { Channel } from '../../src/shared/channels.js';

export const SENDER = 'Herald';
export const MSISDN = '79161234567';

/** A valid message of each channel; tests change one field at a time. */
export const VALID: Readonly<Record<Channel, Record<string, unknown>>> = {
  SMS: { channelType: 'SMS', senderName: SENDER, destination: MSISDN, content: 'Hello' },
  FLASHCALL: { channelType: 'FLASHCALL', senderName: 'any caller', destination: MSISDN, content: '1234' },
  VOICECODE: {
    channelType: 'VOICECODE',
    senderName: 'voicecode',
    destination: MSISDN,
    content: { contentType: 'text', text: 'Код авторизации от Herald: 1234.' },
  },
  WHATSAPP: { channelType: 'WHATSAPP', senderName: SENDER, destination: MSISDN, content: { contentType: 'text', text: 'Hi' } },
  VIBER: { channelType: 'VIBER', senderName: 'Shop', destination: MSISDN, content: { contentType: 'text', text: 'Hi' } },
  VK: { channelType: 'VK', senderName: 'club1', destination: MSISDN, content: 'Hi' },
};

export function message(channel: Channel, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const result: Record<string, unknown> = { ...VALID[channel], ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete result[key];
  return result;
}

/** An expected refusal: HTTP status, error code and exact message. */
export type Refusal = readonly [status: number, code: number, msg: string];
export const refused = (msg: string, code = 4220, status = 422): Refusal => [status, code, msg];
