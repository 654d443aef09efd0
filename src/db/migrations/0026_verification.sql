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
