import type { Channel } from '../../src/shared/channels.js';
import type { TestHerald } from '../helpers/testHerald.js';

export const SENDER = 'Herald';
/** The TELEGRAM sender name (a bot's username) of the fixtures, and a token of its form. */
export const BOT = 'herald_test_bot';
export const BOT_TOKEN = '123456789:AAE-test-token-0123456789abcdefghij';
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
  WHATSAPP: {
    channelType: 'WHATSAPP',
    senderName: SENDER,
    destination: MSISDN,
    content: { contentType: 'text', text: 'Hi' },
  },
  VIBER: {
    channelType: 'VIBER',
    senderName: 'Shop',
    destination: MSISDN,
    content: { contentType: 'text', text: 'Hi' },
  },
  VK: { channelType: 'VK', senderName: 'club1', destination: MSISDN, content: 'Hi' },
  TELEGRAM: {
    channelType: 'TELEGRAM',
    senderName: BOT,
    destination: MSISDN,
    content: { contentType: 'text', text: 'Hi' },
  },
};

export function message(channel: Channel, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const result: Record<string, unknown> = { ...VALID[channel], ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete result[key];
  return result;
}

/** An expected refusal: HTTP status, error code and exact message. */
export type Refusal = readonly [status: number, code: number, msg: string];
export const refused = (msg: string, code = 4220, status = 422): Refusal => [status, code, msg];

/**
 * Opens the WhatsApp chat window of (account, sender name, subscriber) for 24 hours from the test clock, as a
 * subscriber's message would: outside it only content matching an approved template goes out.
 */
export async function openChatWindow(t: TestHerald, accountId: number, sender: string, subscriber: string) {
  const now = t.clock.now();
  await t.testDb.db.query(
    `INSERT INTO whatsapp_windows (account_id, sender_name, subscriber, opened_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, sender_name, subscriber)
     DO UPDATE SET opened_at = excluded.opened_at, expires_at = excluded.expires_at`,
    [accountId, sender, subscriber, now, new Date(now.getTime() + 24 * 3600_000)],
  );
}
