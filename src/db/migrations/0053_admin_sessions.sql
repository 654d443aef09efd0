-- The operator console's sessions (docs/web.md, "Sessions"): a sign-in with HERALD_ADMIN_TOKEN keeps one row and sets
-- a cookie holding `<id>.<secret>`. The row keeps the secret's hash (SHA-256: 256 random bits) and that of the admin
-- token it was opened with, so that a new HERALD_ADMIN_TOKEN ends every session. Sign-out sets ended_at; rows that
-- ended or expired are deleted at the next sign-in.
CREATE TABLE admin_sessions (
  id text PRIMARY KEY,
  secret_hash bytea NOT NULL,
  admin_token_hash bytea NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
