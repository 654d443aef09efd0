-- The parts of long inbound SMS (inbound/smsPartSql.ts): each part is stored before the SMSC's deliver_sm is answered,
-- so a restart between two parts loses nothing. The message is stored when its last part arrives; its parts stay,
-- marked completed, until the sweep (HERALD_INBOUND_PARTS_WAIT_SECONDS after), so that a part the SMSC sends again is
-- recognised and stored once. An incomplete message is handed on as it is by the same sweep.
CREATE TABLE inbound_sms_parts (
  connector_id text NOT NULL,
  sender text NOT NULL,
  recipient text NOT NULL,
  reference integer NOT NULL,
  total smallint NOT NULL,
  part_number smallint NOT NULL,
  text text NOT NULL,
  received_at timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (connector_id, sender, recipient, reference, total, part_number)
);
-- The sweep looks for incomplete messages by their age, and for completed parts by theirs.
CREATE INDEX inbound_sms_parts_waiting ON inbound_sms_parts (received_at) WHERE completed_at IS NULL;
CREATE INDEX inbound_sms_parts_completed ON inbound_sms_parts (completed_at) WHERE completed_at IS NOT NULL;
