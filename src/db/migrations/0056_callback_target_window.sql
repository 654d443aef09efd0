-- Whether a message still refers to a callback target is no longer asked of an index of messages (docs/scaling.md,
-- "Where the WAL and the write transactions go"): messages_callback_target took an entry for each of the four
-- versions of every message with a callback (212 bytes of WAL a message), for one check of the target expiry. A
-- message refers to a target only if it was made while the target was in use, so the expiry reads the account's
-- messages of that time instead (callbacks/targetSql.ts, callbackTargetsExpire).
DROP INDEX messages_callback_target;

-- Parked targets by their last use: after the retention deleted the messages of a time, those last used a day
-- before it are looked at again (callbackTargetsRecheckUsedBefore).
CREATE INDEX callback_targets_parked ON callback_targets (used_at) WHERE parked;
