import type { Queryable } from '../db/db.js';
import { herald, showValue } from '../errors/catalogue.js';
import type { Channel } from '../shared/channels.js';
import { charCount } from '../shared/text.js';
import { isoUtc } from '../util/time.js';
import type { SenderNameJson } from './senderNameSchemas.js';
import { senderNameActiveList, type SenderNameRow } from './senderNameSql.js';

/** SMS sender ids: 3 to 11 of Latin letters, digits and `-_.! `, not only spaces. */
const SMS_SENDER_NAME = /^[A-Za-z0-9\-_.! ]{3,11}$/;
/** A sender name has at most 64 characters on every channel, registered or not. */
export const SENDER_NAME_MAX_LENGTH = 64;

/** Channels whose sender names are registered and moderated; others take any name. */
export const REGISTERED_NAME_CHANNELS: readonly Channel[] = ['SMS', 'WHATSAPP', 'VIBER'];

/** Checks a sender name that is being registered for a channel; throws a 422 naming the problem. */
export function checkSenderNameFormat(channel: Channel, name: unknown): string {
  if (!REGISTERED_NAME_CHANNELS.includes(channel)) {
    throw herald('invalidField', { field: 'channelType', value: `${showValue(channel)} (sender names are registered for ${REGISTERED_NAME_CHANNELS.join(', ')})` });
  }
  if (typeof name !== 'string' || name.trim() === '' || charCount(name) > SENDER_NAME_MAX_LENGTH) {
    throw herald('invalidField', { field: 'name', value: showValue(name) });
  }
  if (channel === 'SMS' && !SMS_SENDER_NAME.test(name)) {
    throw herald('invalidField', { field: 'name', value: `${showValue(name)} (SMS names are 3 to 11 Latin letters, digits and -_.! )` });
  }
  return name;
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
  const active = new Set(rows.map((row) => `${row.channel_type}\u0000${row.name}`));
  return (channel, name) => active.has(`${channel}\u0000${name}`);
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
  };
}
