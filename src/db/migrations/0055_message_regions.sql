-- A message's region, stored once by name (docs/scaling.md, "Where the WAL and the write transactions go"): a message
-- keeps the id of its region's name (4 bytes) instead of the name (40-80 bytes of Cyrillic for a Russian region),
-- which each of the row's four versions (inserted, claimed, sent, final) wrote again. Names are only ever added (the
-- numbering plan's regions, a few hundred); rows stored before keep their `region` and no `region_id`.
CREATE TABLE message_regions (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE
);
ALTER TABLE messages ADD COLUMN region_id integer;
