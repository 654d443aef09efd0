-- Claims take due work in (due time, id) order, so that work due at the same instant goes in a stable order (for
-- messages, the oldest first: their ids are time-ordered) instead of whatever order the heap holds. The due indexes
-- carry the id too, so that a claim stays an index scan that stops at its limit, with no sort of all the due rows.
-- Each index is built while its table takes no writes (migrations run in a transaction: no CONCURRENTLY); both are
-- partial, over the messages waiting to be sent and the open callback deliveries only.
DROP INDEX messages_sending_due;
CREATE INDEX messages_sending_due ON messages (due_at, id) WHERE status = 'sending';
DROP INDEX callback_deliveries_due;
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at, id) WHERE state = 'open';
