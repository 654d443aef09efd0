-- The number portability base (DESIGN 21, docs/mnp.md): the Russian base of ported numbers as last imported, and
-- the imports. Owned by mnp/mnpSql.ts.
--
-- An import loads a table of its own (mnp_numbers_<import id>), builds its index after the load, and then, in one
-- short transaction, drops the current mnp_numbers and renames its table to mnp_numbers. Lookups always read
-- mnp_numbers: the old base until that commit, the new one after it, never a half-loaded one. The swap waits for
-- lookups already running (milliseconds) and lookups wait for it (a rename and a drop: milliseconds); it gives up
-- after a lock timeout rather than queue lookups behind a long transaction, and tries again. Replacing a base of
-- millions of rows deletes none: the old table is dropped whole (a DELETE would write every row to the WAL, and its
-- dead rows would wait for a vacuum).

-- An operator of the base (its OwnerId) and the brand Herald names it with (the numbering plan's name for the same
-- operator: see mnp/operatorBrands.ts). A few dozen rows, never deleted, shared by every import: a ported number
-- keeps a 2-byte reference instead of the names.
CREATE TABLE mnp_operators (
  id smallint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id text NOT NULL UNIQUE,
  brand text NOT NULL
);

-- The current base: empty until the first import replaces it. Numbers are E.164 digits as a bigint (79161234567):
-- 8 bytes, not a 12-byte text, and an index of half the size. The row is about 60 bytes: 5,000,000 numbers take
-- about 300 MB and their index about 110 MB.
CREATE TABLE mnp_numbers (
  number bigint PRIMARY KEY,
  operator_id smallint NOT NULL,
  mnc smallint,
  route text,
  region_code smallint,
  ported_at timestamptz
);

CREATE TABLE mnp_imports (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- receiving: the file is arriving (kept in a temporary file); loading: its rows go into the import's table;
  -- indexing: its index is built; done: it is the current base (or was, until a later import); failed.
  state text NOT NULL CHECK (state IN ('receiving', 'loading', 'indexing', 'done', 'failed')),
  bytes bigint NOT NULL DEFAULT 0,
  -- Rows read after the header, rows loaded, rows refused (error_count) and numbers repeated in the file (the
  -- latest port date kept).
  rows bigint NOT NULL DEFAULT 0,
  loaded bigint NOT NULL DEFAULT 0,
  error_count bigint NOT NULL DEFAULT 0,
  duplicates bigint NOT NULL DEFAULT 0,
  -- The first rows refused: [{line, msg}].
  errors jsonb NOT NULL DEFAULT '[]',
  -- Why a failed import failed.
  failure text,
  started_at timestamptz NOT NULL,
  -- Each step of a running import moves it: an import whose process stopped is seen by its standing still.
  progress_at timestamptz NOT NULL,
  finished_at timestamptz
);

-- One import at a time: a second one is refused (409) while one runs.
CREATE UNIQUE INDEX mnp_imports_running ON mnp_imports ((true)) WHERE state IN ('receiving', 'loading', 'indexing');
