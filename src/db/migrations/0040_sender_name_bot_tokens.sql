-- A TELEGRAM sender name is a bot; the operator attaches the bot's token to it (DESIGN 18), and the name can send
-- only once it has one. The token is a credential: no answer shows it (senderNames/senderNames.ts masks it).
ALTER TABLE sender_names ADD COLUMN bot_token text;
-- Telegram usernames are case-insensitive: an account has one sender name per bot, whatever case it is written in,
-- so that a message's senderName finds one bot.
CREATE UNIQUE INDEX sender_names_telegram_unique ON sender_names (account_id, lower(name))
  WHERE channel_type = 'TELEGRAM' AND deleted_at IS NULL;
