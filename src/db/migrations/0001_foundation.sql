-- Foundation: accounts, tokens, the balance ledger, sender names, messages and idempotency keys.
-- Hot tables carry account_id first in their primary key, so that they can later be distributed by account
-- (Citus) without a change of keys. Hot tables have no foreign keys: a per-row trigger on every message insert
-- costs more than it protects, and the API only ever writes rows for an authenticated account.

CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE accounts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'blocked')),
  currency text NOT NULL,
  -- Channels the operator has switched on beyond the defaults (WHATSAPP) or off; see shared/channels.ts.
  channels jsonb NOT NULL DEFAULT '{}',
  inbound_enabled boolean NOT NULL DEFAULT false,
  credit_limit numeric(20, 6) NOT NULL DEFAULT 0 CHECK (credit_limit >= 0),
  callback_secret text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE api_tokens (
  id text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  type text NOT NULL CHECK (type IN ('traffic', 'system')),
  secret_hash bytea NOT NULL,
  traffic_center_id bigint,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_tokens_account ON api_tokens (account_id);

-- Append-only: the balance of an account in a currency is the sum of its entries. account_balances holds that
-- sum, updated in the same transaction as every insert here, so that reading a balance is one row.
CREATE TABLE balance_ledger (
  account_id bigint NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  currency text NOT NULL,
  amount numeric(20, 6) NOT NULL,
  kind text NOT NULL,
  reference text,
  comment text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, id)
);

CREATE TABLE account_balances (
  account_id bigint NOT NULL,
  currency text NOT NULL,
  amount numeric(20, 6) NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, currency)
);

CREATE TABLE sender_names (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  channel_type text NOT NULL,
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('Pending', 'Approved', 'Rejected')),
  start_date timestamptz,
  comment text,
  manager_comment text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE UNIQUE INDEX sender_names_unique ON sender_names (account_id, channel_type, name) WHERE deleted_at IS NULL;
CREATE INDEX sender_names_status ON sender_names (status, created_at) WHERE deleted_at IS NULL;

CREATE TABLE messages (
  account_id bigint NOT NULL,
  id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  channel_type text NOT NULL,
  direction text NOT NULL DEFAULT 'outbound',
  sending_method text NOT NULL DEFAULT 'API',
  traffic_center_id bigint,
  template_id bigint,
  sender_name text NOT NULL,
  destination text NOT NULL,
  country text,
  region text,
  brand text,
  -- A JSON string for SMS, FLASHCALL and VK; the content object for VOICECODE, VIBER and WHATSAPP.
  content jsonb NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  use_local_time boolean NOT NULL DEFAULT true,
  local_send_time text,
  local_completion_time text,
  ttl integer,
  hours smallint[],
  days smallint[],
  short_url boolean NOT NULL DEFAULT false,
  callback_url text,
  callback_events text[],
  external_message_id text,
  total_parts integer NOT NULL,
  status text NOT NULL,
  status_at timestamptz NOT NULL,
  planned_send_at timestamptz,
  sent_at timestamptz,
  error_code integer,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX messages_account_created ON messages (account_id, created_at);

-- A response kept for 24 hours per (account, operation, key); see idempotency/idempotency.ts.
CREATE TABLE idempotency_keys (
  account_id bigint NOT NULL,
  operation text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer NOT NULL,
  response jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, operation, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
