/*
 * The region names of messages (message_regions: this module owns it): each stored once, a message keeping its id.
 */

/**
 * A message's region name, an SQL expression over its row: the name the row kept (rows stored before migration 0055)
 * or the one its `region_id` names.
 */
export const MESSAGE_REGION_NAME = 'coalesce(region, (SELECT g.name FROM message_regions g WHERE g.id = region_id))';

/**
 * CTEs that give the ids of the region names of `source` (a CTE or table with a text column `region`), as `regions`
 * (id, name): the names already stored are read, the others added. A name another transaction added after this
 * statement's snapshot is found by the insert's conflict, which then returns its id (the rare update of that row is
 * the price of one statement per batch, not two).
 */
export const messageRegionsCte = (source: string): string => `
     stored_regions AS (
       SELECT g.id, g.name FROM message_regions g WHERE g.name IN (SELECT region FROM ${source})
     ),
     added_regions AS (
       INSERT INTO message_regions (name)
       SELECT DISTINCT s.region FROM ${source} s
       WHERE s.region IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stored_regions g WHERE g.name = s.region)
       ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
       RETURNING id, name
     ),
     regions AS (SELECT id, name FROM stored_regions UNION ALL SELECT id, name FROM added_regions)`;
