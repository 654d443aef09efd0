-- A third token type (DESIGN 16): `verify` (TOKEN_3) sends and checks one-time codes through a verifier and does
-- nothing else, so that it can live where a code is asked for (an app, a sign-in page's backend) without the power
-- of a traffic token.
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_type_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_type_check CHECK (type IN ('traffic', 'system', 'verify'));
