import type { Queryable } from '../db/db.js';

/** The number linked to a chat with an account's bot, if any. */
export async function telegramLinkPhone(
  db: Queryable,
  accountId: number,
  bot: string,
  chatId: string,
): Promise<string | undefined> {
  const [row] = await db.query<{ phone: string }>(
    `SELECT phone FROM telegram_links WHERE account_id = $1 AND bot = $2 AND chat_id = $3 LIMIT 1`,
    [accountId, bot, chatId],
  );
  return row?.phone;
}

/**
 * Links a number to a chat, replacing an earlier link of the number (the number changed hands) and of the chat
 * (the subscriber's number changed): one chat per number and one number per chat, per account and bot.
 */
export async function telegramLinkPut(
  db: Queryable,
  link: { accountId: number; bot: string; phone: string; chatId: string; userId: string; at: Date },
): Promise<void> {
  await db.query(
    `WITH gone AS (
       DELETE FROM telegram_links WHERE account_id = $1 AND bot = $2 AND chat_id = $4 AND phone <> $3
     )
     INSERT INTO telegram_links (account_id, bot, phone, chat_id, user_id, linked_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, bot, phone)
       DO UPDATE SET chat_id = excluded.chat_id, user_id = excluded.user_id, linked_at = excluded.linked_at`,
    [link.accountId, link.bot, link.phone, link.chatId, link.userId, link.at],
  );
}

/** Removes a number's link (the subscriber blocked the bot, or the chat is gone); true when there was one. */
export async function telegramLinkDelete(
  db: Queryable,
  accountId: number,
  bot: string,
  phone: string,
): Promise<boolean> {
  const rows = await db.query(
    `DELETE FROM telegram_links WHERE account_id = $1 AND bot = $2 AND phone = $3 RETURNING 1`,
    [accountId, bot, phone],
  );
  return rows.length > 0;
}

/** The chats of many numbers at once (one statement for the telegram-bot connector's concurrent sends). */
export async function telegramLinkChats(
  db: Queryable,
  keys: readonly { accountId: number; bot: string; phone: string }[],
): Promise<{ account_id: string; bot: string; phone: string; chat_id: string }[]> {
  return db.query(
    `SELECT l.account_id::text, l.bot, l.phone, l.chat_id::text
     FROM unnest($1::bigint[], $2::text[], $3::text[]) AS k(account_id, bot, phone)
     JOIN telegram_links l ON l.account_id = k.account_id AND l.bot = k.bot AND l.phone = k.phone`,
    [keys.map((k) => k.accountId), keys.map((k) => k.bot), keys.map((k) => k.phone)],
  );
}
