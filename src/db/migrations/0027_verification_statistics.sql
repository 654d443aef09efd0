-- Statistics of verification (verify/, DESIGN 16): sends, confirmations and conversion rate per verifier and channel.
-- confirmed_channel: the channel of the step the code was confirmed after (the last step that left Herald), null
-- while not confirmed or when no step had left.
ALTER TABLE verifications ADD COLUMN confirmed_channel text;
-- What the statistics read of codes still kept: the account's codes sent in a range.
CREATE INDEX verifications_account_created ON verifications (account_id, created_at);

-- The figures of codes deleted by the retention job (a day after they expired), rolled up in the same transaction
-- by the hour they were sent in, per verifier and channel: codes sent whose first step went on this channel, steps
-- that left Herald on it, codes confirmed after a step of it. gateway_id stays when the verifier is deleted.
CREATE TABLE verification_stats (
  account_id bigint NOT NULL,
  gateway_id text NOT NULL,
  hour timestamptz NOT NULL,
  channel_type text NOT NULL,
  codes integer NOT NULL,
  steps integer NOT NULL,
  confirmations integer NOT NULL,
  PRIMARY KEY (account_id, hour, gateway_id, channel_type)
);
