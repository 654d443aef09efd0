-- The expiry takes the messages whose wait has run out in (due time, id) order, as claims do since 0014: among
-- messages due at the same instant the oldest first, whatever order the heap holds. Its index carries the id too, so
-- that the expiry stays an index scan that stops at its limit, with no sort of all the due rows. Built while the
-- table takes no writes (migrations run in a transaction: no CONCURRENTLY); partial, over the waiting messages only.
DROP INDEX messages_waiting_due;
CREATE INDEX messages_waiting_due ON messages (due_at, id) WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL;
