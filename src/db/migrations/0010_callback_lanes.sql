-- Callback deliveries are formed from the events written since the sender's last round, not by probing every lane
-- of every callback URL ten times a second (which cost ten thousand idle URLs a core): this index finds them.
CREATE INDEX callback_events_txid ON callback_events (txid, id);

-- Every event up to (scanned_txid, scanned_id) has a cursor for its lane (lanes of idle URLs lose theirs,
-- callbacks/laneSql.ts): a sender that starts reads the events after it.
CREATE TABLE callback_scan (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  scanned_txid bigint NOT NULL,
  scanned_id bigint NOT NULL
);

-- New callback URLs of an account per day are limited (HERALD_CALLBACK_URLS_PER_DAY): counted by this index.
CREATE INDEX callback_targets_account_created ON callback_targets (account_id, created_at);
