import type { Db, Queryable } from '../db/db.js';
import { herald, showValue } from '../errors/catalogue.js';
import type { Channel } from '../shared/channels.js';
import { charCount } from '../shared/text.js';
import { isoUtc } from '../util/time.js';
import type { SenderNameJson } from './senderNameSchemas.js';
import { senderNameActiveList, type SenderNameRow, senderNameWhatsappOtherOwner } from './senderNameSql.js';

/** SMS sender ids: 3 to 11 of Latin letters, digits and `-_.! `, not only spaces. */
const SMS_SENDER_NAME = /^[A-Za-z0-9\-_.! ]{3,11}$/;
/** A sender name has at most 64 characters on every channel, registered or not. */
export const SENDER_NAME_MAX_LENGTH = 64;

/** Channels whose sender names are registered and moderated; others take any name. */
export const REGISTERED_NAME_CHANNELS: readonly Channel[] = ['SMS', 'WHATSAPP', 'VIBER', 'TELEGRAM'];

/** A Telegram bot's username, without `@`: 5 to 32 letters, digits and `_`, ending in `bot` in any case. */
const TELEGRAM_BOT_USERNAME = /^[A-Za-z0-9_]{2,29}[Bb][Oo][Tt]$/;

/** Whether `name` can be a TELEGRAM sender name: a bot's username (DESIGN 18). */
export function isTelegramBotUsername(name: string): boolean {
  return TELEGRAM_BOT_USERNAME.test(name);
}

/** A Telegram bot token: the bot's id, `:`, and its secret. */
const BOT_TOKEN = /^([0-9]{1,20}):[A-Za-z0-9_-]{30,50}$/;

/** Whether `token` has the form of a Telegram bot token. */
export function isBotToken(token: string): boolean {
  return BOT_TOKEN.test(token);
}

/**
 * A bot token as every answer shows it: the bot's id (public: it is in every update the bot sends) and an ellipsis,
 * never the secret.
 */
export function maskBotToken(token: string | null): string | null {
  if (token === null) return null;
  return `${token.slice(0, Math.max(0, token.indexOf(':')))}:…`;
}

/** Checks a sender name that is being registered for a channel; throws a 422 naming the problem. */
export function checkSenderNameFormat(channel: Channel, name: unknown): string {
  if (!REGISTERED_NAME_CHANNELS.includes(channel)) {
    throw herald('invalidField', {
      field: 'channelType',
      value: `${showValue(channel)} (sender names are registered for ${REGISTERED_NAME_CHANNELS.join(', ')})`,
    });
  }
  if (typeof name !== 'string' || name.trim() === '' || charCount(name) > SENDER_NAME_MAX_LENGTH) {
    throw herald('invalidField', { field: 'name', value: showValue(name) });
  }
  if (channel === 'SMS' && !SMS_SENDER_NAME.test(name)) {
    throw herald('invalidField', {
      field: 'name',
      value: `${showValue(name)} (SMS names are 3 to 11 Latin letters, digits and -_.! )`,
    });
  }
  if (channel === 'TELEGRAM' && !isTelegramBotUsername(name)) {
    throw herald('invalidField', {
      field: 'name',
      value:
        `${showValue(name)} (TELEGRAM names are bot usernames without @: 5 to 32 letters, digits and _, ` +
        'ending in bot)',
    });
  }
  return name;
}

// Any fixed number works; approvals of WhatsApp names in every Herald process sharing a database take it.
const WHATSAPP_APPROVAL_LOCK_KEY = 7_311_400_531;

/**
 * Runs `approve` (which makes a sender name of `accountId` Approved) under the rule that one WhatsApp number belongs
 * to one account: a WHATSAPP name standing for the number of another account's approved name is refused
 * with 409 4091, so that no inbound can belong to two accounts. Approvals of WhatsApp names take one transaction
 * lock, so two at once cannot both pass the check; they are operator actions, rare enough to queue.
 */
export async function approveSenderName<T>(
  db: Db,
  name: { accountId: number; channelType: Channel; name: string },
  approve: (tx: Queryable) => Promise<T>,
): Promise<T> {
  if (name.channelType !== 'WHATSAPP') return approve(db);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [WHATSAPP_APPROVAL_LOCK_KEY]);
    const owner = await senderNameWhatsappOtherOwner(tx, name.accountId, name.name);
    if (owner) {
      throw herald('conflict', {
        reason:
          `WhatsApp sender name ${showValue(name.name)} is the number of account ${owner.account_id} ` +
          `(approved as ${showValue(owner.name)}); a WhatsApp number has one owner`,
      });
    }
    return approve(tx);
  });
}

/** Loads the account's active names of `channels` once and answers membership for a whole batch. */
export async function activeSenderNames(
  db: Queryable,
  accountId: number,
  channels: readonly Channel[],
  now: Date,
): Promise<(channel: Channel, name: string) => boolean> {
  if (channels.length === 0) return () => false;
  const rows = await senderNameActiveList(db, accountId, channels, now);
  const key = (channel: Channel, name: string): string =>
    `${channel}\u0000${channel === 'TELEGRAM' ? name.toLowerCase() : name}`;
  // TELEGRAM names are bots' usernames, which Telegram compares in any case; other names are compared as written.
  const active = new Set(rows.map((row) => key(row.channel_type, row.name)));
  return (channel, name) => active.has(key(channel, name));
}

export function senderNameToApi(row: SenderNameRow): SenderNameJson {
  return {
    id: row.id,
    accountId: row.account_id,
    channelType: row.channel_type,
    name: row.name,
    status: row.status,
    startDate: isoUtc(row.start_date),
    comment: row.comment,
    managerComment: row.manager_comment,
    createdAt: isoUtc(row.created_at)!,
    updatedAt: isoUtc(row.updated_at)!,
    botToken: maskBotToken(row.bot_token),
  };
}
