-- Cascades: one notification over a chain of channels (cascades/). A cascade's id is its root, the message of its
-- first step. steps: each step as a validated message (the cascade's common fields in each) with its condition;
-- current_step: the last step created; state: running, done (a step reached the end it was waiting for, or the
-- last step ended, or no further step could be created) or stopped (by the client). The sender's traffic center,
-- sending method and currency are those of the request, for the steps created later.
CREATE TABLE cascades (
  account_id bigint NOT NULL,
  id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  steps jsonb NOT NULL,
  step_count smallint NOT NULL,
  current_step smallint NOT NULL DEFAULT 1,
  state text NOT NULL DEFAULT 'running',
  ended_at timestamptz,
  traffic_center_id bigint,
  sending_method text NOT NULL,
  currency text NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX cascades_ended ON cascades (ended_at) WHERE ended_at IS NOT NULL;

-- Each step is an ordinary message that knows its cascade and place; one message per step, ever (the unique index
-- makes the creation of a step exactly-once).
ALTER TABLE messages ADD COLUMN cascade_id uuid, ADD COLUMN cascade_step smallint;
CREATE UNIQUE INDEX messages_cascade ON messages (account_id, cascade_id, cascade_step) WHERE cascade_id IS NOT NULL;

-- Every callback of a step carries cascade_message_uuid and cascade_step.
ALTER TABLE callback_events ADD COLUMN cascade_id uuid, ADD COLUMN cascade_step smallint;

-- Statistics group by step (0: not in a cascade).
ALTER TABLE stats_daily ADD COLUMN cascade_step smallint NOT NULL DEFAULT 0;
ALTER TABLE stats_daily DROP CONSTRAINT stats_daily_pkey;
ALTER TABLE stats_daily ADD PRIMARY KEY (account_id, day, channel_type, sender_name, status, currency, tag, cascade_step);
