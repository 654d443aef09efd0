-- Callback events are written by many statements of both roles (statuses, receipts, inbound messages, expiries),
-- often as a CTE of a bigger one; a trigger wakes the callback senders of every process when any of them stores
-- events (db/wake.ts), so that no writer can forget to. It fires once per statement, and notifies only when the
-- statement inserted rows: the jobs' statements that find nothing to do wake no one. PostgreSQL delivers the
-- notification at the commit, and folds identical ones of one transaction into one.
CREATE FUNCTION herald_wake_callbacks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted) THEN
    PERFORM pg_notify(left('herald_wake_' || TG_TABLE_SCHEMA, 63), 'callbacks');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER callback_events_wake AFTER INSERT ON callback_events
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION herald_wake_callbacks();
