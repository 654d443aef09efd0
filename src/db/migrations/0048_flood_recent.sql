-- The flood filter's sliding hour, one row per account and destination instead of one per message (flood_events):
-- a batch appends to its destinations' rows and reads what they held in one statement, where it took a read and an
-- insert of one row per message, both under the account's guard lock. The times and 32-bit text hashes of the
-- messages accepted in the last hour, oldest first; each append forgets those older than the hour, and the guard's
-- job deletes rows untouched for an hour. UNLOGGED as before (no WAL on the hot path; a PostgreSQL crash forgets at
-- most one hour); the hour counted in flood_events is not carried over: an upgrade starts the filter afresh.
-- Owned by guard/floodSql.ts.
DROP TABLE flood_events;
CREATE UNLOGGED TABLE flood_recent (
  account_id bigint NOT NULL,
  destination text COLLATE "C" NOT NULL,
  sent_at timestamptz[] NOT NULL,
  texts integer[] NOT NULL,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, destination)
) WITH (fillfactor = 80);
