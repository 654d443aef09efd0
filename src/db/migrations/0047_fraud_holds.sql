-- Pumping detection and fraud holds (fraud/, DESIGN 20).
-- Messages per account per hour to a number range (kind 'range': the number without its last 4 digits) or a country
-- (kind 'country'), counting the messages that went (held ones are in their hold); `proofs` counts verification
-- confirmations and FLASHCALL conversions on the range that hour. One row per key and hour: a batch writes one row
-- per key it touches, and the baseline reads at most 7 * 24 rows per key.
CREATE TABLE fraud_counts (
  account_id bigint NOT NULL,
  kind text NOT NULL,
  key text NOT NULL,
  hour timestamptz NOT NULL,
  sent integer NOT NULL DEFAULT 0,
  proofs integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, kind, key, hour)
);
CREATE INDEX fraud_counts_hour ON fraud_counts (hour);

-- A burst the detection held: one open hold per account and key collects its messages until the operator releases
-- it (the key is trusted until trusted_until) or rejects it.
CREATE TABLE fraud_holds (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL,
  kind text NOT NULL,
  key text NOT NULL,
  status text NOT NULL DEFAULT 'open',
  messages integer NOT NULL DEFAULT 0,
  allowance integer NOT NULL,
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  decided_at timestamptz,
  trusted_until timestamptz
);
CREATE UNIQUE INDEX fraud_holds_open ON fraud_holds (account_id, kind, key) WHERE status = 'open';
CREATE INDEX fraud_holds_trusted ON fraud_holds (account_id, kind, key, trusted_until)
  WHERE trusted_until IS NOT NULL;

-- The hold a message waits in (due_at 'infinity' while it is open).
ALTER TABLE messages ADD COLUMN fraud_hold_id bigint;
CREATE INDEX messages_fraud_hold ON messages (account_id, fraud_hold_id) WHERE fraud_hold_id IS NOT NULL;
