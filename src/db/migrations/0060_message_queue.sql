-- The queue in a table of its own (docs/scaling.md, "The queue in a table of its own"): a row per message in status
-- `sending`, its lane (channel, traffic type) and due time, the same as the message's `due_at`. The claim reads the
-- lanes here and each message's columns from `messages` by key; `messages_sending_due` goes. Rows live while their
-- message waits to be sent (or is in a worker's hands): the insert adds them, the outcome statement deletes them when
-- a message leaves `sending` (and puts one back when a retry or a receipt's reroute returns it there), a dispatch's
-- hold, schedule and plan and a fraud hold's release move their due time with the message's. Unpartitioned: it
-- holds what waits, not what was sent. Keyed by id first, so that a span of ids (a partition's, the queue's floor)
-- is a range of the key. Owned by messages/claimSql.ts.
CREATE TABLE message_queue (
  id uuid NOT NULL,
  account_id bigint NOT NULL,
  channel_type text NOT NULL,
  traffic_type text NOT NULL,
  due_at timestamptz NOT NULL,
  PRIMARY KEY (id, account_id)
);
INSERT INTO message_queue (id, account_id, channel_type, traffic_type, due_at)
SELECT id, account_id, channel_type, traffic_type, due_at FROM messages WHERE status = 'sending' ORDER BY id;
CREATE INDEX message_queue_due ON message_queue (channel_type, traffic_type, due_at, id);
DROP INDEX messages_sending_due;
