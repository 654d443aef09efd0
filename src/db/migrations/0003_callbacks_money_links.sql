-- Callbacks, money, short links and flash-call conversions.

-- Money: tariffs, and each message's price (reserved at generation, final when sent, refunded when unsent).
CREATE TABLE tariffs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint REFERENCES accounts (id),
  channel_type text NOT NULL,
  prefix text,
  country text,
  price numeric(20, 6) NOT NULL CHECK (price >= 0),
  currency text NOT NULL,
  -- 'api' (operator API) or 'config' (HERALD_CONFIG, replaced at every start)
  source text NOT NULL DEFAULT 'api',
  created_at timestamptz NOT NULL
);
CREATE INDEX tariffs_lookup ON tariffs (channel_type, account_id);

ALTER TABLE messages
  ADD COLUMN price numeric(20, 6) NOT NULL DEFAULT 0,
  ADD COLUMN currency text,
  ADD COLUMN price_final boolean NOT NULL DEFAULT false,
  -- An unsent message keeps the price it was reserved at for the record; refunded says it was given back.
  ADD COLUMN price_refunded boolean NOT NULL DEFAULT false;

-- Callbacks: an outbox. Each event is inserted in the statement that makes the change it reports. A callback URL
-- (a target) has 16 lanes; all events of one message go to one lane (by its uuid), so that they arrive in status
-- order, while a busy URL takes 16 deliveries at once. Events of a lane are sent in the order of their
-- transactions, in deliveries of up to 100; a lane has at most one open delivery, retried as a whole (same id,
-- same events) until it succeeds or its window ends.
--
-- Events are taken in (txid, id) order, and only from transactions older than every transaction still running
-- (pg_snapshot_xmin): that set can never grow behind a cursor, whereas ids alone can (a transaction that took an
-- id early may commit after one that took a later id).
CREATE TABLE callback_targets (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL,
  url text NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (account_id, url)
);

-- Where each lane's next delivery starts; a row appears with the lane's first delivery.
CREATE TABLE callback_cursors (
  target_id bigint NOT NULL,
  lane smallint NOT NULL,
  cursor_txid xid8 NOT NULL,
  cursor_event_id bigint NOT NULL,
  PRIMARY KEY (target_id, lane)
);

-- An event is stored as its facts; its JSON body (spec 6.2-6.5) is written when it is sent (callbacks/eventBody.ts).
CREATE TABLE callback_events (
  target_id bigint NOT NULL,
  lane smallint NOT NULL,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  id bigint GENERATED ALWAYS AS IDENTITY,
  account_id bigint NOT NULL,
  message_id uuid NOT NULL,
  event text NOT NULL,
  channel_type text NOT NULL,
  status text,
  at timestamptz NOT NULL,
  error_code integer,
  -- price: {parts, price, currency}; click: {url, short_url}; inbound: {item}
  extra jsonb,
  PRIMARY KEY (target_id, lane, txid, id)
);
CREATE INDEX callback_events_message ON callback_events (account_id, message_id);

CREATE TABLE callback_deliveries (
  id uuid PRIMARY KEY,
  account_id bigint NOT NULL,
  target_id bigint NOT NULL,
  lane smallint NOT NULL,
  -- the events of the lane after (after_txid, after_event_id) up to and including (last_txid, last_event_id)
  after_txid xid8 NOT NULL,
  after_event_id bigint NOT NULL,
  last_txid xid8 NOT NULL,
  last_event_id bigint NOT NULL,
  events integer NOT NULL,
  state text NOT NULL CHECK (state IN ('open', 'delivered', 'failed')),
  replay boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  window_started_at timestamptz NOT NULL,
  last_attempt_at timestamptz,
  last_http_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE UNIQUE INDEX callback_deliveries_one_open ON callback_deliveries (target_id, lane)
  WHERE state = 'open' AND NOT replay;
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at) WHERE state = 'open';
CREATE INDEX callback_deliveries_account ON callback_deliveries (account_id, state, created_at);

CREATE TABLE callback_attempts (
  delivery_id uuid NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  account_id bigint NOT NULL,
  at timestamptz NOT NULL,
  http_status integer,
  latency_ms integer NOT NULL,
  error text,
  PRIMARY KEY (delivery_id, id)
);

-- Short links: one code per message and link.
CREATE TABLE short_links (
  code text PRIMARY KEY,
  account_id bigint NOT NULL,
  message_id uuid NOT NULL,
  url text NOT NULL,
  clicks integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  last_click_at timestamptz
);
CREATE INDEX short_links_message ON short_links (account_id, message_id);

CREATE TABLE flashcall_conversions (
  account_id bigint NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  message_id uuid NOT NULL,
  result text NOT NULL CHECK (result IN ('NUMBER_VERIFIED', 'WRONG_CODE')),
  code text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX flashcall_conversions_message ON flashcall_conversions (account_id, message_id);

-- The callback target of a message with a callbackUrl, resolved when it is stored.
ALTER TABLE messages ADD COLUMN callback_target_id bigint;
