-- Declarative HTTP connectors (DESIGN 19). Owned by messages/submissionSql.ts.
-- The provider's price of a submitted message (the buy price, section 21), where its answer or its status report
-- gives one: on the message's first part. Not indexed, so that writing it keeps the row's updates HOT.
ALTER TABLE submissions ADD COLUMN buy_price numeric;

-- The submissions of providers that report no status by themselves: Herald asks them (status.poll) every
-- interval until the message is final or `poll_until` (its lifetime and a grace) has passed. Several workers share
-- the asking: each claims due rows by moving their next_at (SKIP LOCKED).
CREATE TABLE submission_polls (
  connector_id text NOT NULL,
  carrier_id text NOT NULL,
  next_at timestamptz NOT NULL,
  poll_until timestamptz NOT NULL,
  PRIMARY KEY (connector_id, carrier_id)
);
CREATE INDEX submission_polls_due ON submission_polls (connector_id, next_at);
