-- A third token type (DESIGN 16): `verify` (TOKEN_3) sends and checks one-time codes through a verifier and does
-- nothing else, so that it can live where a code is asked for (an app, a sign-in page's backend) without the power
-- of a traffic token.
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_type_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_type_check CHECK (type IN ('traffic', 'system', 'verify'));

-- Verifiers (verify/): how an account's one-time codes are made and sent. gateway_id is the short random name a
-- client sends codes through; workflow: the steps [{channelType, senderName, timeout}] in order.
CREATE TABLE verifiers (
  account_id bigint NOT NULL,
  gateway_id text NOT NULL,
  name text NOT NULL,
  brand text NOT NULL,
  code_length smallint NOT NULL,
  code_ttl integer NOT NULL,
  max_checks smallint NOT NULL,
  workflow jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, gateway_id)
);

-- A step of a verification's cascade gives way to the next when its timeout passes unconfirmed (cascades/):
-- step_timeout_at is when the current step times out, steps_until the instant from which no step is created (the
-- code's expiry). The partial index is what the timeout job scans: running cascades with a timeout only.
ALTER TABLE cascades ADD COLUMN step_timeout_at timestamptz, ADD COLUMN steps_until timestamptz;
CREATE INDEX cascades_step_timeout ON cascades (step_timeout_at) WHERE state = 'running' AND step_timeout_at IS NOT NULL;

-- The key codes are HMACed with (verify/): made once by the first process that needs it. A code is never stored,
-- only HMAC-SHA256(key, "<uuid>:<code>"), so that a copy of the verifications table alone tells no code.
CREATE TABLE verify_keys (
  id smallint PRIMARY KEY,
  secret bytea NOT NULL,
  created_at timestamptz NOT NULL
);

-- One code sent through a verifier (verify/). id is the uuid the client checks with, the id of the cascade that
-- sends the code; state: pending, confirmed, or replaced (a newer send to the same destination through the same
-- verifier). checks counts the checks made; past max_checks, or past expires_at, the code is EXPIRED.
CREATE TABLE verifications (
  account_id bigint NOT NULL,
  id uuid NOT NULL,
  gateway_id text NOT NULL,
  destination text NOT NULL,
  code_hmac bytea NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  max_checks smallint NOT NULL,
  checks smallint NOT NULL DEFAULT 0,
  state text NOT NULL DEFAULT 'pending',
  confirmed_at timestamptz,
  PRIMARY KEY (account_id, id)
);
-- The sends of the last 10 minutes to a destination through a verifier (the send limit), and its pending code.
CREATE INDEX verifications_destination ON verifications (account_id, gateway_id, destination, created_at);
CREATE INDEX verifications_expiry ON verifications (expires_at);
