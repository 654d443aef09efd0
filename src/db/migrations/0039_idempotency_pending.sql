-- A batch of large rows is stored in several short transactions (messages/sendMessages.ts, cascades/cascades.ts): its
-- key is recorded first, pending until this time (renewed by each slice), its answer's items appended slice by slice,
-- and the whole answer written at the end (NULL: complete). A retry after a pending record's time resumes the batch.
ALTER TABLE idempotency_keys ADD COLUMN pending_until timestamptz;
