-- An inbound WhatsApp message belongs to the one account whose approved WHATSAPP sender name is exactly
-- its number. The expression is the number a name stands for (senderNameSql.ts WHATSAPP_NUMBER_SQL, which must stay
-- identical for the planner to use this index): an E.164 name with or without its '+' is its digits, any other
-- name is itself. Each inbound looks its owner up here instead of scanning every sender name.
CREATE INDEX sender_names_whatsapp_number ON sender_names (
  (CASE WHEN name ~ '^\+?[1-9][0-9]{1,14}$' THEN ltrim(name, '+') ELSE name END)
) WHERE channel_type = 'WHATSAPP' AND status = 'Approved' AND deleted_at IS NULL;
