-- What the web pages need: people who sign in to an account's personal pages, session tokens, and the live state
-- of every worker's connectors for the operator console (docs/web.md).

-- Users of an account's personal pages, created by the operator. password_hash is
-- `scrypt$N$r$p$<salt>$<hash>` (base64url; accounts/passwords.ts). A login names one user across all accounts.
CREATE TABLE account_users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  login text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX account_users_account ON account_users (account_id);

-- Session tokens: a sign-in issues a traffic and a system token that share session_id and end at expires_at.
-- session_of says how the session began: 'token:<key id>' (with a system API key) or 'user:<id>' (with a login);
-- revoking that key or deleting that user revokes the session's tokens too. API keys keep all three NULL and never
-- expire.
ALTER TABLE api_tokens
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN session_of text,
  ADD COLUMN session_id text;
CREATE INDEX api_tokens_session ON api_tokens (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX api_tokens_session_of ON api_tokens (session_of) WHERE session_of IS NOT NULL AND revoked_at IS NULL;

-- Each worker process's connectors as it last reported them (every 2 s), so that any api process can show them.
-- process is hostname:pid; a process deletes its rows when it stops cleanly, and rows of a process that died
-- stay, shown as stale, until an hour after their last report. previous_submitted and previous_at keep the report
-- before the last, for the submission rate.
CREATE TABLE connector_status (
  process text NOT NULL,
  connector_id text NOT NULL,
  channel text NOT NULL,
  type text NOT NULL,
  available boolean NOT NULL,
  state text NOT NULL,
  in_flight integer NOT NULL,
  window_size integer NOT NULL,
  mps double precision NOT NULL,
  submitted bigint NOT NULL,
  last_error text,
  previous_submitted bigint,
  previous_at timestamptz,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (process, connector_id)
);
