-- The numbers (and short codes) the operator assigned to accounts: an inbound SMS written to one belongs to its
-- account (DESIGN 17). One owner per number and channel.
CREATE TABLE inbound_numbers (
  channel_type text NOT NULL,
  number text NOT NULL,
  account_id bigint NOT NULL REFERENCES accounts (id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (channel_type, number)
);
CREATE INDEX inbound_numbers_account ON inbound_numbers (account_id);
