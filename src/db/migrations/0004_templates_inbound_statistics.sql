-- Templates, traffic partitioning centers, inbound rules and messages, the WhatsApp chat window, statistics.

CREATE TABLE templates (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  channel_type text NOT NULL,
  template_type text NOT NULL,
  pattern text NOT NULL,
  sender_name text NOT NULL,
  date_from timestamptz NOT NULL,
  date_to timestamptz,
  status text NOT NULL CHECK (status IN ('INTERNAL_REVIEW', 'APPROVED', 'REJECTED')),
  manager_comment text,
  content jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX templates_account ON templates (account_id, channel_type) WHERE deleted_at IS NULL;
CREATE INDEX templates_review ON templates (status, created_at) WHERE deleted_at IS NULL;

CREATE TABLE traffic_centers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX traffic_centers_one_default ON traffic_centers (account_id) WHERE is_default;

CREATE TABLE inbound_rules (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  traffic_center_id bigint NOT NULL REFERENCES traffic_centers (id),
  callback_url text,
  sender_names text[],
  channel_type text NOT NULL DEFAULT 'WHATSAPP',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX inbound_rules_account ON inbound_rules (account_id);

-- A subscriber's message opens a 24-hour window per (account, sender name, subscriber) for free-form messages.
CREATE TABLE whatsapp_windows (
  account_id bigint NOT NULL,
  sender_name text NOT NULL,
  subscriber text NOT NULL,
  opened_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, sender_name, subscriber)
);

-- Inbound messages that no account's sender name claims: kept for the operator, never dropped.
CREATE TABLE unrouted_inbounds (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  connector_id text NOT NULL,
  provider_message_id text NOT NULL,
  sender_name text,
  subscriber text NOT NULL,
  text text NOT NULL,
  received_at timestamptz NOT NULL,
  UNIQUE (connector_id, provider_message_id)
);

-- An inbound message is stored once even when the provider sends its webhook again.
ALTER TABLE messages ADD COLUMN provider_message_id text;
CREATE UNIQUE INDEX messages_inbound_once ON messages (account_id, provider_message_id)
  WHERE provider_message_id IS NOT NULL;

-- Statistics: daily rollups (UTC days) of days that are behind the watermark, per account and dimension; the
-- rows with tag = '' count whole messages, the others count the messages carrying that tag. Newer days, and days
-- whose messages changed after they were rolled up (stats_dirty_days), are aggregated live from messages.
CREATE TABLE stats_daily (
  account_id bigint NOT NULL,
  day date NOT NULL,
  channel_type text NOT NULL,
  sender_name text NOT NULL,
  status text NOT NULL,
  currency text NOT NULL,
  tag text NOT NULL,
  messages bigint NOT NULL,
  parts bigint NOT NULL,
  price numeric(24, 6) NOT NULL,
  clicks bigint NOT NULL,
  conversions bigint NOT NULL,
  PRIMARY KEY (account_id, day, channel_type, sender_name, status, currency, tag)
);

CREATE TABLE stats_dirty_days (
  account_id bigint NOT NULL,
  day date NOT NULL,
  PRIMARY KEY (account_id, day)
);

-- Every day up to rolled_until (UTC) has been rolled up; one row.
CREATE TABLE stats_rollup_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  rolled_until date NOT NULL
);
