-- The list's search by destination reads message_destinations through a B-tree of (account, destination) instead of
-- a GIN index of the key 'account:destination' (docs/scaling.md, "Where the WAL and the write transactions go"): a
-- GIN insert is a pending-list entry (166 bytes of WAL a message) that a later insert or vacuum writes again into the
-- index's tree; a B-tree entry is written once, half the size. Made on the partitioned table: every partition gets
-- its own, and partitions attached later (messages/messagePartitions.ts) get theirs when attached.
CREATE INDEX message_destinations_search ON message_destinations (account_id, destination);
DROP INDEX message_destinations_key;
