-- Delivery: the messages table is its own durable queue. due_at is when the next thing must happen to a message:
-- its send attempt (status sending), or the end of its wait for a final status (sent) or for a read (delivered).
-- A claim moves due_at to the end of the lease, so a crashed worker's claims fall due again by themselves.

ALTER TABLE messages
  ADD COLUMN due_at timestamptz,
  ADD COLUMN deadline_at timestamptz,
  ADD COLUMN lease_expires_at timestamptz,
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN connector_id text,
  ADD COLUMN parts_delivered integer NOT NULL DEFAULT 0,
  ADD COLUMN read_status text,
  ADD COLUMN history jsonb NOT NULL DEFAULT '[]';

CREATE INDEX messages_sending_due ON messages (due_at) WHERE status = 'sending';
CREATE INDEX messages_waiting_due ON messages (due_at) WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL;

-- Message uuids are version 7 (time-ordered): the primary key (account_id, id) already lists an account's messages
-- in time order, and time ranges map to id ranges.
DROP INDEX messages_account_created;

-- What a carrier accepted: one row per submitted part, keyed by the carrier's id, so that receipts find their
-- message. Receipts carry no account, so this table is keyed by connector and carrier id.
CREATE TABLE submissions (
  connector_id text NOT NULL,
  carrier_id text NOT NULL,
  account_id bigint NOT NULL,
  message_id uuid NOT NULL,
  part smallint NOT NULL,
  parts smallint NOT NULL,
  state text,
  state_at timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (connector_id, carrier_id)
);

-- Receipts that arrived before their submission was recorded (another process submitted it a moment ago).
-- They are matched again until they find their submission or expire.
CREATE TABLE orphan_receipts (
  connector_id text NOT NULL,
  carrier_id text NOT NULL,
  state text NOT NULL,
  error_code integer,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (connector_id, carrier_id, state)
);
