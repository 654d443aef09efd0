-- TELEGRAM (DESIGN 18): the numbers subscribers linked to a bot by sharing their own contact in its chat, per
-- account and bot (a bot is a TELEGRAM sender name; its username is kept in lower case, as Telegram compares them).
-- A text to a number goes to its chat; a number without a link is undelivered (7601) at once. The link goes when the
-- subscriber blocks the bot (7602) or the chat disappears. Owned by telegram/telegramLinkSql.ts.
CREATE TABLE telegram_links (
  account_id bigint NOT NULL REFERENCES accounts (id),
  bot text NOT NULL,
  phone text NOT NULL,
  chat_id bigint NOT NULL,
  user_id bigint NOT NULL,
  linked_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, bot, phone)
);
-- An update names the chat, not the number: inbound messages find their subscriber by it.
CREATE INDEX telegram_links_chat ON telegram_links (account_id, bot, chat_id);
