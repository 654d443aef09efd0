-- Traffic types (AUTHORIZE, TRANSACT, SERVICE, PROMO) of outbound messages. Messages stored before them read as
-- SERVICE (a constant default: no rewrite of the table); new ones are given theirs by the API (channel defaults:
-- AUTHORIZE for FLASHCALL and VOICECODE, SERVICE otherwise). Inbound messages have none to show (the API shows
-- null whatever the column holds).
ALTER TABLE messages ADD COLUMN traffic_type text NOT NULL DEFAULT 'SERVICE';

-- Workers claim due messages by traffic type first (AUTHORIZE, TRANSACT, SERVICE, PROMO), then by due time: one
-- range scan of this index per type, each stopping at its limit, however many PROMO messages wait.
DROP INDEX messages_sending_due;
CREATE INDEX messages_sending_due ON messages (traffic_type, due_at, id) WHERE status = 'sending';

-- Statistics group by traffic type ('' for inbound and the days rolled up before them).
ALTER TABLE stats_daily ADD COLUMN traffic_type text NOT NULL DEFAULT '';
ALTER TABLE stats_daily DROP CONSTRAINT stats_daily_pkey;
ALTER TABLE stats_daily ADD PRIMARY KEY (account_id, day, channel_type, sender_name, status, currency, tag, cascade_step,
  traffic_type);
