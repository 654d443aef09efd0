-- Routes in the database (DESIGN 21): the operator changes them through /admin/v1/routes and every process reloads
-- them within seconds (a wake-up of topic 'routes', and a look at route_book.version every few seconds). A route's
-- match, connectors, reroute and quality are JSON: read whole by every process into its route table, never queried
-- field by field. route_book (one row) counts changes and says whether HERALD_CONFIG's routes seeded the table (only
-- the first start seeds it: from then on the table is the truth). Owned by routing/routeSql.ts.
CREATE TABLE routes (
  id bigserial PRIMARY KEY,
  priority integer NOT NULL DEFAULT 0,
  channel_type text NOT NULL,
  match jsonb NOT NULL,
  connectors jsonb NOT NULL,
  strategy text NOT NULL,
  reroute jsonb,
  quality jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE TABLE route_book (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  version bigint NOT NULL,
  seeded boolean NOT NULL
);
INSERT INTO route_book (version, seeded) VALUES (0, false);

-- What a message's sending cost (DESIGN 21, margins): the route it went by and its buy price (per part, from the
-- route's connector, times its parts), in the price's currency. Set by the sent transition's update, which writes
-- the row anyway; not indexed, so that the update stays HOT.
ALTER TABLE messages ADD COLUMN route_id bigint, ADD COLUMN buy_price numeric, ADD COLUMN buy_currency text;

-- A message a carrier's failure sent on through its route's next connector (DESIGN 21, reroute): the connectors it
-- was rerouted from, and the failure it would end with if no other connector takes it before its deadline
-- ({"from": ["smsc-a"], "status": "undelivered", "errorCode": 1}). Null for nearly every message.
ALTER TABLE messages ADD COLUMN reroute jsonb;

-- Final receipts per connector and minute, added by every worker process (connectors/connectorOutcomes.ts): the
-- delivery rate a route's quality floor reads, the same in every process. Pruned after a day.
CREATE TABLE connector_outcomes (
  connector_id text NOT NULL,
  minute timestamptz NOT NULL,
  delivered integer NOT NULL,
  final integer NOT NULL,
  PRIMARY KEY (connector_id, minute)
);
