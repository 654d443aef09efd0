-- Dispatches (dispatches/): mass mailings of one message with substitutions. message: the validated message of the
-- dispatch (its content with {placeholders}, its window and callback fields, its traffic type). status: initiated,
-- started (scheduled, sending, awaiting and done are read from its messages), paused or stopped. speed_ms: the
-- spacing of its messages' send times (0: all at once).
CREATE TABLE dispatches (
  account_id bigint NOT NULL,
  id uuid NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  message jsonb NOT NULL,
  speed jsonb,
  speed_ms double precision NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'initiated',
  started_at timestamptz,
  traffic_center_id bigint,
  sending_method text NOT NULL,
  currency text NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX dispatches_created ON dispatches (account_id, created_at);

-- A dispatch's messages; its counters are counted from them (exact at every moment).
ALTER TABLE messages ADD COLUMN dispatch_id uuid;
CREATE INDEX messages_dispatch ON messages (account_id, dispatch_id, status) WHERE dispatch_id IS NOT NULL;
