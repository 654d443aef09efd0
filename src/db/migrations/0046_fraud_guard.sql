-- The fraud guard and consent (DESIGN 20). The settings of both sides live on the account (accounts/ owns them and
-- loads the effective ones with the token: a send reads nothing more); the rest is owned by guard/.

-- The operator's settings and the client's narrowing of them (shared/guardSettings.ts): absent keys are the
-- defaults (operator) or no narrowing (client).
ALTER TABLE accounts
  ADD COLUMN guard_operator jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN guard_client jsonb NOT NULL DEFAULT '{}';

-- Who changed which side's settings, when, from what to what. Owned by accounts/accountSettingsSql.ts.
CREATE TABLE account_settings_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  changed_at timestamptz NOT NULL,
  side text NOT NULL CHECK (side IN ('operator', 'client')),
  -- 'operator', 'token:<key id>' or 'user:<id>'.
  actor text NOT NULL,
  before jsonb NOT NULL,
  after jsonb NOT NULL
);
CREATE INDEX account_settings_audit_account ON account_settings_audit (account_id, id);

-- Subscribers' consents to mailings. Absent scope fields match everything. Owned by guard/consentSql.ts.
CREATE TABLE consents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  number text NOT NULL,
  sender_name text,
  traffic_type text,
  source text NOT NULL,
  proof text,
  given_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
-- One index scan for `number = ANY($2)` over a batch's numbers.
CREATE INDEX consents_number ON consents (account_id, number);

-- Messages accepted per destination, for the flood filter's sliding hour: one row per accepted message, deleted an
-- hour later. UNLOGGED: no WAL on the hot path; after a PostgreSQL crash the table is empty and the filter forgets
-- at most one hour (a deliberate trade: the filter guards subscribers from floods, it keeps no money).
-- Owned by guard/floodSql.ts.
CREATE UNLOGGED TABLE flood_events (
  account_id bigint NOT NULL,
  destination text NOT NULL,
  text_hash text NOT NULL,
  sent_at timestamptz NOT NULL
);
CREATE INDEX flood_events_destination ON flood_events (account_id, destination, sent_at);
CREATE INDEX flood_events_sent_at ON flood_events (sent_at);

-- What an account's accepted messages cost per currency per calendar day in its zone, against dailySpendLimit.
-- Owned by guard/spendSql.ts.
CREATE TABLE daily_spend (
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  currency text NOT NULL,
  day date NOT NULL,
  amount numeric(20, 6) NOT NULL,
  PRIMARY KEY (account_id, currency, day)
);

-- Items refused at generation (never stored as messages) and messages let through by a monitor-mode setting,
-- per account, day (UTC), channel and code. Owned by guard/refusalSql.ts.
CREATE TABLE refusal_counts (
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  day date NOT NULL,
  channel_type text NOT NULL,
  code integer NOT NULL,
  monitored boolean NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (account_id, day, channel_type, code, monitored)
);
