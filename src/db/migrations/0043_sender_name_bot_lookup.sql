-- A bot's token attaches to one account only (DESIGN 18): setting one looks for another account's sender name of
-- the same bot, by its name in lower case among those with a token. Owned by senderNames/senderNameSql.ts.
CREATE INDEX sender_names_bots ON sender_names (lower(name))
  WHERE channel_type = 'TELEGRAM' AND bot_token IS NOT NULL AND deleted_at IS NULL;
