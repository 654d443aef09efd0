-- The operator's cap on an account's sending (PATCH /admin/v1/accounts/{id} maxRate: messages per second over all
-- channels; NULL: none). pace_next: when the account's next SERVICE or PROMO message may be due; each accepted
-- message takes the next slot (accounts/paceSql.ts), so the pace holds across every worker process.
ALTER TABLE accounts ADD COLUMN max_rate double precision, ADD COLUMN pace_next timestamptz;
