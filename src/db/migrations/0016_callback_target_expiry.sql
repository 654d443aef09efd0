-- Callback URLs (targets) expire once idle (callbacks/targetSql.ts): a URL unused for a day with nothing left to send
-- loses its 16 lane cursors, and goes altogether once no event and no message refers to it any more.
-- used_at: when a batch last resolved the URL through the database (processes keep its id for an hour at most).
-- parked: its cursors went; the expiry looks at it again only when a lane gets a cursor again or the retention
-- deleted what referred to it. lanes_from_txid: where a lane without a cursor starts (after every event of a
-- transaction that had ended when its cursors went), at the start of the outbox for a URL that never expired.
ALTER TABLE callback_targets
  ADD COLUMN used_at timestamptz,
  ADD COLUMN parked boolean NOT NULL DEFAULT false,
  ADD COLUMN lanes_from_txid xid8 NOT NULL DEFAULT '0';
UPDATE callback_targets SET used_at = created_at;
ALTER TABLE callback_targets ALTER COLUMN used_at SET NOT NULL;

-- The targets the expiry looks at, least recently used first; parked ones are not in it.
CREATE INDEX callback_targets_unparked ON callback_targets (used_at, id) WHERE NOT parked;

-- Whether a message still refers to a target (it may raise an event for it: a click, a read receipt). Partial:
-- messages without a callback URL cost it nothing.
CREATE INDEX messages_callback_target ON messages (callback_target_id) WHERE callback_target_id IS NOT NULL;
