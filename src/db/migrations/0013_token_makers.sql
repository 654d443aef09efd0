-- Which user a token descends from: the session tokens of that user's sign-ins, the API keys issued with them,
-- and the keys issued in turn with those keys (directly or in a session opened with one). Deleting the user, or the
-- operator resetting the user's password, revokes every one of them (accounts/userRoutes.ts), so that a key minted
-- by a person does not outlive their access. NULL: the account's first keys, the operator's keys, and keys that
-- descend from those only; they stay. No foreign key: the id stays after the user is deleted, as the record of who
-- made the (then revoked) key; identity ids are never reused. created_in_session is the web sign-in whose token
-- issued the key (api_tokens.session_id of that session's tokens), NULL when an API key issued it.
ALTER TABLE api_tokens
  ADD COLUMN created_by_user bigint,
  ADD COLUMN created_in_session text;
CREATE INDEX api_tokens_created_by_user ON api_tokens (created_by_user)
  WHERE created_by_user IS NOT NULL AND revoked_at IS NULL;

-- Sessions opened with a login before this migration descend from their user. Keys issued in them before it were
-- not recorded and cannot be traced.
UPDATE api_tokens SET created_by_user = substr(session_of, 6)::bigint WHERE session_of LIKE 'user:%';
