-- A claim of the queue is one row (docs/scaling.md, "The claim as one record"): the ids it took and its lease, where
-- it wrote a new version of every message it took (their due time moved to the lease's end, an entry in the primary
-- key and the queue's index: some 550 bytes of WAL a message). A message is in a worker's hands while a record whose
-- lease has not run out holds its id; the record goes once every one of its messages has its outcome written, or
-- when a later claim finds its lease run out. Owned by messages/claimSql.ts.
CREATE TABLE message_claims (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  lease_expires_at timestamptz NOT NULL,
  ids uuid[] NOT NULL
);
