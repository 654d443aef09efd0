-- A message without tags stores NULL instead of an empty array (docs/scaling.md, "Where the WAL and the write
-- transactions go"): 16 bytes that each of its row's versions (inserted, claimed, sent, final) wrote again. Every
-- reader treats NULL as no tags (unnest, &&, the message object's []). A catalogue change only: rows stored before
-- keep their '{}'.
ALTER TABLE messages ALTER COLUMN tags DROP NOT NULL, ALTER COLUMN tags DROP DEFAULT;
