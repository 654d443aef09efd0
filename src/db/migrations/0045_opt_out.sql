-- Opt-out (DESIGN 20): an account's keywords and its confirmation reply. No row: the default keywords (STOP, СТОП,
-- ОТПИСКА, UNSUBSCRIBE) and no reply. Keywords are kept as the client wrote them (trimmed); matching folds case.
-- Owned by optout/optOutSettingSql.ts.
CREATE TABLE opt_out_settings (
  account_id bigint PRIMARY KEY REFERENCES accounts (id),
  keywords text[] NOT NULL,
  reply text,
  updated_at timestamptz NOT NULL
);

-- `{unsubscribe}` in a text becomes a short link of its message whose page lists the subscriber after one
-- confirming click: a short link with no target. Retention deletes it with its message, as any short link.
-- Owned by links/shortLinkSql.ts.
ALTER TABLE short_links ALTER COLUMN url DROP NOT NULL;
ALTER TABLE short_links ADD COLUMN unsubscribe boolean NOT NULL DEFAULT false;
ALTER TABLE short_links ADD CONSTRAINT short_links_unsubscribe_has_no_url CHECK ((url IS NULL) = unsubscribe);
