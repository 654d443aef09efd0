-- A code that can no longer be confirmed stops what is left of its workflow (verify/): one used up by its checks
-- is ended by the check, one past its lifetime by the verification-expiry job, which looks every second for the
-- pending codes whose expires_at has come. This partial index is what it reads: the pending codes only, not the
-- day of ended ones kept for their checks. state 'expired' is new: a code ended that way.
CREATE INDEX verifications_pending_expiry ON verifications (expires_at) WHERE state = 'pending';
