-- Callback deliveries are formed from the events written since the sender's last round, not by probing every lane
-- of every callback URL ten times a second (which cost ten thousand idle URLs a core): this index finds them.
CREATE INDEX callback_events_txid ON callback_events (txid);

-- Every event below scanned_to has a cursor for its lane (lanes of idle URLs lose theirs, callbacks/laneSql.ts).
CREATE TABLE callback_scan (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  scanned_to bigint NOT NULL
);

-- New callback URLs of an account per day are limited (HERALD_CALLBACK_URLS_PER_DAY): counted by this index.
CREATE INDEX callback_targets_account_created ON callback_targets (account_id, created_at);
