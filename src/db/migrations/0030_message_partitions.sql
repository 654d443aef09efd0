-- Messages partitioned by time (docs/scaling.md, Partitions): by RANGE of their id, a version 7 UUID whose first 48
-- bits are the Unix milliseconds of its creation, one partition per week (Monday 00:00 UTC), so that the retention
-- drops a whole week instead of deleting its rows one by one (messages/messagePartitions.ts makes them). The
-- primary key (account_id, id) already holds the partition key.

-- A unique index of a partitioned table must hold the partition key, and two promises did not: one message per
-- inbound provider id (a webhook sent again stores nothing twice), one message per cascade step (steps are created
-- hours apart, in other partitions). They are kept in this small table instead, written in the statement that
-- inserts the message; its rows go with their messages (messages/messagePartitions.ts, messagesDeleteFinished).
-- key: 'inbound <connector:providerId>' or 'cascade <cascade id> <step>' (messages/messageKeys.ts).
CREATE TABLE message_keys (
  account_id bigint NOT NULL,
  key text NOT NULL,
  message_id uuid NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX message_keys_message ON message_keys (message_id);
INSERT INTO message_keys (account_id, key, message_id)
SELECT account_id, 'inbound ' || provider_message_id, id FROM messages WHERE provider_message_id IS NOT NULL;
INSERT INTO message_keys (account_id, key, message_id)
SELECT account_id, 'cascade ' || cascade_id || ' ' || cascade_step, id FROM messages WHERE cascade_id IS NOT NULL;
DROP INDEX messages_inbound_once;
DROP INDEX messages_cascade;

-- The table as it is becomes the first partition, of every id before the next UTC day: its rows stay where they are
-- (no copy, no index rebuilt: its indexes are attached to the partitioned table's, which have their definitions).
-- Attaching it reads it once to check its ids against the bound (1.7 s for a million messages; see scaling.md).
ALTER TABLE messages RENAME TO messages_legacy;
ALTER TABLE messages_legacy RENAME CONSTRAINT messages_pkey TO messages_legacy_pkey;
ALTER INDEX messages_callback_target RENAME TO messages_legacy_callback_target;
ALTER INDEX messages_destination RENAME TO messages_legacy_destination;
ALTER INDEX messages_dispatch RENAME TO messages_legacy_dispatch;
ALTER INDEX messages_dispatch_unheld RENAME TO messages_legacy_dispatch_unheld;
ALTER INDEX messages_inbound RENAME TO messages_legacy_inbound;
ALTER INDEX messages_sending_due RENAME TO messages_legacy_sending_due;
ALTER INDEX messages_waiting_due RENAME TO messages_legacy_waiting_due;

CREATE TABLE messages (LIKE messages_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id);
ALTER TABLE messages ADD PRIMARY KEY (account_id, id);
CREATE INDEX messages_callback_target ON messages (callback_target_id) WHERE callback_target_id IS NOT NULL;
CREATE INDEX messages_cascade ON messages (account_id, cascade_id, cascade_step) WHERE cascade_id IS NOT NULL;
CREATE INDEX messages_destination ON messages USING gin ((ARRAY[account_id::text || ':' || destination]));
CREATE INDEX messages_dispatch ON messages (account_id, dispatch_id, status) WHERE dispatch_id IS NOT NULL;
CREATE INDEX messages_dispatch_unheld ON messages (account_id, dispatch_id)
  WHERE dispatch_id IS NOT NULL AND status = 'sending' AND due_at <> 'infinity';
CREATE INDEX messages_inbound ON messages (account_id, id) WHERE direction = 'inbound';
CREATE INDEX messages_sending_due ON messages (channel_type, traffic_type, due_at, id) WHERE status = 'sending';
CREATE INDEX messages_waiting_due ON messages (due_at, id) WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL;

-- The low bound of the next UTC day's ids: 12 hex digits of its milliseconds, then version 7 and the lowest rest.
ALTER TABLE messages ATTACH PARTITION messages_legacy FOR VALUES FROM (MINVALUE) TO ((
  lpad(to_hex((extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') * 1000)::bigint),
    12, '0') || '70008000000000000000')::uuid);
-- Ids no week partition covers (the partition maintenance creates them 7 days ahead: a clock far ahead, a test's
-- clock) land here; the retention deletes its rows one by one, as before.
CREATE TABLE messages_default PARTITION OF messages DEFAULT;
