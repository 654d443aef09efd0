-- The message list's search by destination moves from an index of messages to a table written once per message
-- (docs/scaling.md, "Where the WAL and the write transactions go"): messages_destination (GIN) took a pending-list
-- entry for each of the four versions of every message (the insert, and each status change that is not HOT), some
-- 540 bytes of WAL a message; a row here and its one entry, written by the message's insert, cost about half.
-- Partitioned as messages, partition for partition (the same bounds, named message_destinations_<suffix> for
-- messages_<suffix>): the partition maintenance makes and the retention drops them together
-- (messages/messagePartitions.ts). Rows go with their messages; there is no other key (a lookup is by the key).
CREATE TABLE message_destinations (
  account_id bigint NOT NULL,
  id uuid NOT NULL,
  destination text NOT NULL
) PARTITION BY RANGE (id);

DO $$
DECLARE p record;
BEGIN
  FOR p IN
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'messages'::regclass
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF message_destinations %s',
      'message_destinations_' || substr(p.name, length('messages_') + 1), p.bound);
  END LOOP;
END $$;

-- Every message stored so far (the index is built after: one sort instead of an entry a row).
INSERT INTO message_destinations (account_id, id, destination) SELECT account_id, id, destination FROM messages;

CREATE INDEX message_destinations_key ON message_destinations USING gin ((ARRAY[account_id::text || ':' || destination]));
DROP INDEX messages_destination;
