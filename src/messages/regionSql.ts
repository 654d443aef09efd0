/*
 * The region names of messages (message_regions: this module owns it): each stored once, a message keeping its id.
 */

/**
 * A message's region name, an SQL expression over its row: the name the row kept (rows stored before migration 0055)
 * or the one its `region_id` names.
 */
export const messageRegionName = (m: string): string =>
  `coalesce(${m}.region, (SELECT g.name FROM message_regions g WHERE g.id = ${m}.region_id))`;

/**
 * CTEs that give the ids of the region names `names` (an SQL expression of a text[]: a batch's parameter) as
 * `regions`, one row whose `ids` maps each name to its id (read with {@link messageRegionId}): the names already
 * stored are read, the others added. A name another transaction added after this statement's snapshot is found by
 * the insert's conflict, which then returns its id (the rare update of that row is the price of one statement per
 * batch, not two). A map rather than a join: joined, the planner sorted the batch's rows by their region's name to
 * merge them with the names, and the messages went into the table in that order instead of their ids' (the heap's
 * pages and the primary key's leaves out of order); and the names read from their own parameter leave the batch's
 * rows to be read once, by the insert, instead of stored aside for three readers (docs/scaling.md, "Columns of
 * NULLs").
 */
export const messageRegionsCte = (names: string): string => `
     stored_regions AS (
       SELECT g.id, g.name FROM message_regions g WHERE g.name = ANY(${names})
     ),
     added_regions AS (
       INSERT INTO message_regions (name)
       SELECT DISTINCT s.name FROM unnest(${names}) AS s(name)
       WHERE s.name IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stored_regions g WHERE g.name = s.name)
       ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
       RETURNING id, name
     ),
     regions AS (
       SELECT jsonb_object_agg(g.name, g.id) AS ids
       FROM (SELECT id, name FROM stored_regions UNION ALL SELECT id, name FROM added_regions) g
     )`;

/** The id of the region name `name` (an SQL expression) in `regions` (`alias`: {@link messageRegionsCte}). */
export const messageRegionId = (alias: string, name: string): string => `(${alias}.ids->>${name})::int`;
