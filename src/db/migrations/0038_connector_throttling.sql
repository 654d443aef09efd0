-- An SMSC's throttling, shown to the operator with each connector's live state (GET /admin/v1/connectors): the
-- ESME_RTHROTTLED and ESME_RMSGQFUL answers the connector had since its process started, and the end of the pause
-- they started while it lasts (connectors/connectorStatusSql.ts).
ALTER TABLE connector_status ADD COLUMN throttled bigint NOT NULL DEFAULT 0, ADD COLUMN paused_until timestamptz;
