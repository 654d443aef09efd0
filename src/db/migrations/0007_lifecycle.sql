-- The message lifecycle as the contract states it: a status and a read status apart, one lifetime per message,
-- a price always in the account's currency, and callback lanes that a refused delivery no longer holds up.

-- expires_at: the end of a message's one lifetime (its earliest send time + ttl). It must be sent before
-- min(deadline_at, expires_at) and reach a final status, and a read, by expires_at; carriers get the time left.
ALTER TABLE messages ADD COLUMN expires_at timestamptz;
UPDATE messages
SET expires_at = coalesce(planned_send_at, created_at) + make_interval(secs => coalesce(ttl, 90000))
WHERE status IN ('sending', 'sent', 'delivered');
UPDATE messages SET deadline_at = least(deadline_at, expires_at) WHERE status = 'sending';

-- `read` and `unread` were statuses; they are the read status of a delivered message (read_status holds them).
UPDATE messages SET status = 'delivered' WHERE status IN ('read', 'unread');

-- A free message's price is 0 in the account's currency, not without one.
UPDATE messages m SET currency = a.currency FROM accounts a WHERE a.id = m.account_id AND m.currency IS NULL;

-- The daily rollups follow both changes: their read/unread rows join delivered, and '' currency rows the account's.
CREATE TEMPORARY TABLE stats_moved ON COMMIT DROP AS
SELECT s.account_id, s.day, s.channel_type, s.sender_name,
  CASE WHEN s.status IN ('read', 'unread') THEN 'delivered' ELSE s.status END AS status,
  CASE WHEN s.currency = '' THEN a.currency ELSE s.currency END AS currency,
  s.tag, s.messages, s.parts, s.price, s.clicks, s.conversions
FROM stats_daily s JOIN accounts a ON a.id = s.account_id
WHERE s.status IN ('read', 'unread') OR s.currency = '';
DELETE FROM stats_daily WHERE status IN ('read', 'unread') OR currency = '';
INSERT INTO stats_daily (account_id, day, channel_type, sender_name, status, currency, tag, messages, parts, price,
  clicks, conversions)
SELECT account_id, day, channel_type, sender_name, status, currency, tag, sum(messages), sum(parts), sum(price),
  sum(clicks), sum(conversions)
FROM stats_moved
GROUP BY account_id, day, channel_type, sender_name, status, currency, tag
ON CONFLICT (account_id, day, channel_type, sender_name, status, currency, tag) DO UPDATE
SET messages = stats_daily.messages + excluded.messages, parts = stats_daily.parts + excluded.parts,
  price = stats_daily.price + excluded.price, clicks = stats_daily.clicks + excluded.clicks,
  conversions = stats_daily.conversions + excluded.conversions;

-- A lane is held only by a delivery not yet attempted: once a receiver refuses one, it is retried on its own
-- schedule and newer events of the lane go out in new deliveries, each with its own retry window. Events of a
-- message that still has an event in an open delivery go in a delivery of their own (only_messages) that waits for
-- the older ones; the rest of that range goes with those messages left out (excluded_messages). So each message's
-- events arrive in order, and a refused delivery holds back only its own messages (callbacks/deliverySql.ts).
ALTER TABLE callback_deliveries ADD COLUMN only_messages uuid[], ADD COLUMN excluded_messages uuid[];
DROP INDEX callback_deliveries_one_open;
CREATE UNIQUE INDEX callback_deliveries_one_fresh ON callback_deliveries (target_id, lane)
  WHERE state = 'open' AND NOT replay AND attempts = 0 AND only_messages IS NULL;
CREATE INDEX callback_deliveries_lane_open ON callback_deliveries (target_id, lane) WHERE state = 'open';
