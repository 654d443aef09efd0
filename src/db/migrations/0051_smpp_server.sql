-- Herald's SMPP server for clients (DESIGN 22, docs/smpp-server.md).

-- The 8-character SMPP password of a traffic token (SMPP 3.4 passwords are at most 8 characters, tokens' secrets 43):
-- one per token, a new one replaces the old, only its hash is kept. Owned by smppServer/smppPasswordSql.ts.
CREATE TABLE smpp_passwords (
  token_id text PRIMARY KEY REFERENCES api_tokens (id) ON DELETE CASCADE,
  account_id bigint NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL
);

-- Clients' SMPP binds over every api process: the count against the account's smppBinds, and the lists of binds.
-- A process writes its own binds' rows, refreshes them (seen_at, window use) every 10 s and deletes them on unbind;
-- rows of a process that died stop counting once not seen for 30 s. Owned by smppServer/smppBindSql.ts.
CREATE TABLE smpp_binds (
  id uuid PRIMARY KEY,
  account_id bigint NOT NULL,
  system_id text NOT NULL,
  address text NOT NULL,
  bind_type text NOT NULL CHECK (bind_type IN ('transmitter', 'receiver', 'transceiver')),
  since timestamptz NOT NULL,
  seen_at timestamptz NOT NULL,
  submits_outstanding integer NOT NULL DEFAULT 0,
  delivers_outstanding integer NOT NULL DEFAULT 0,
  window_size integer NOT NULL
);
CREATE INDEX smpp_binds_account ON smpp_binds (account_id, seen_at);

-- The account's SMPP settings (operator's, PATCH /admin/v1/accounts/{id}): binds at once over every api process (smpp_binds), and
-- where inbound SMS go besides the inbound rules' callback URLs. Owned by accounts/accountSql.ts.
ALTER TABLE accounts ADD COLUMN smpp_binds smallint NOT NULL DEFAULT 4,
  ADD COLUMN inbound_via text[] NOT NULL DEFAULT '{}';

-- Receipts and MO for an account's binds are callback events of its target `smpp:binds` (callbacks/smppPostSql.ts):
-- the statements that change statuses form them as for any callback URL. Their POSTs are marked at forming and are
-- never due for the HTTP sender (next_attempt_at 'infinity'); the SMPP server of a process holding a receiver bind
-- of the account leases them (smpp_lease_until) and delivers their events one deliver_sm each.
ALTER TABLE callback_deliveries ADD COLUMN via_smpp boolean NOT NULL DEFAULT false,
  ADD COLUMN smpp_lease_until timestamptz;
CREATE INDEX callback_deliveries_smpp ON callback_deliveries (account_id, created_at) WHERE state = 'open' AND via_smpp;

-- The events of an SMPP POST a client acknowledged (deliver_sm_resp): never sent again, whatever becomes of the
-- rest of the POST. Deleted with the POST once all its events are acknowledged.
CREATE TABLE smpp_receipt_acks (
  delivery_id uuid NOT NULL,
  event_id bigint NOT NULL,
  acked_at timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, event_id)
);
