import type { Queryable } from '../db/db.js';
import { wakeAtCommit } from '../db/wake.js';
import { matchOf, type Route, type RouteFields } from './route.js';

/*
 * The statements on routes and route_book (routing/ owns both; migration 0049). Every change bumps the book's
 * version and notifies topic 'routes' at its commit, in the changing transaction: every process reloads its table.
 * Changes are rare (an operator's edit), so the notification's cost at commit does not matter here.
 */

interface RouteRow {
  id: number;
  priority: number;
  match: Route['match'];
  connectors: Route['connectors'];
  strategy: Route['strategy'];
  reroute: Route['reroute'];
  quality: Route['quality'];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id::int AS id, priority, match, connectors, strategy, reroute, quality, created_at, updated_at';

/** A row as a route; fields absent from its JSON (a row written by hand) read as null, as the API writes them. */
const routeOf = (row: RouteRow): Route => ({
  id: row.id,
  priority: row.priority,
  match: matchOf(row.match),
  connectors: row.connectors.map((c) => ({
    connectorId: c.connectorId,
    weight: c.weight ?? null,
    buyPrice: c.buyPrice ?? null,
  })),
  strategy: row.strategy,
  reroute: row.reroute,
  quality: row.quality,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The number of changes so far: a process whose table is of an older version loads the routes again. */
export async function routeBookVersion(db: Queryable): Promise<number> {
  const [row] = await db.query<{ version: number }>('SELECT version::float8 AS version FROM route_book');
  return row?.version ?? 0;
}

/** Every route, with the version they are of (read in one snapshot: a change between the two is not half seen). */
export async function routeListAll(db: Queryable): Promise<{ version: number; routes: Route[] }> {
  const rows = await db.query<RouteRow & { version: number }>(
    `SELECT ${COLUMNS}, b.version::float8 AS version FROM route_book b LEFT JOIN routes ON true ORDER BY id`,
  );
  return {
    version: rows[0]?.version ?? 0,
    routes: rows.filter((r) => r.id !== null).map(routeOf),
  };
}

/** A page of routes in the order they win ties of nothing else: highest priority first, then by id. */
export async function routePage(
  db: Queryable,
  filter: { channelType: string | null; accountId: number | null },
  limit: number,
  offset: number,
): Promise<{ items: Route[]; total: number }> {
  const rows = await db.query<RouteRow & { total: number }>(
    `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM routes
     WHERE ($1::text IS NULL OR channel_type = $1)
       AND ($2::bigint IS NULL OR match->'accountIds' @> to_jsonb($2::bigint))
     ORDER BY priority DESC, id LIMIT $3 OFFSET $4`,
    [filter.channelType, filter.accountId, limit, offset],
  );
  if (rows.length > 0 || offset === 0) return { items: rows.map(routeOf), total: rows[0]?.total ?? 0 };
  // A page past the end has no row to carry the count.
  const [count] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM routes
     WHERE ($1::text IS NULL OR channel_type = $1)
       AND ($2::bigint IS NULL OR match->'accountIds' @> to_jsonb($2::bigint))`,
    [filter.channelType, filter.accountId],
  );
  return { items: [], total: count!.n };
}

/** A route; `lock`: locked until the caller's transaction ends (a change made from it). */
export async function routeGet(db: Queryable, id: number, lock = false): Promise<Route | undefined> {
  const [row] = await db.query<RouteRow>(`SELECT ${COLUMNS} FROM routes WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [
    id,
  ]);
  return row && routeOf(row);
}

export async function routeCount(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM routes');
  return row!.n;
}

/** Marks a change: the version moves on and every process hears of it at the commit. */
async function changed(tx: Queryable): Promise<void> {
  await tx.query('UPDATE route_book SET version = version + 1');
  await wakeAtCommit(tx, 'routes');
}

const params = (f: RouteFields): unknown[] => [
  f.priority,
  f.match.channelType,
  JSON.stringify(f.match),
  JSON.stringify(f.connectors),
  f.strategy,
  f.reroute === null ? null : JSON.stringify(f.reroute),
  f.quality === null ? null : JSON.stringify(f.quality),
];

/** Adds routes (in the caller's transaction). */
export async function routeInsert(tx: Queryable, routes: readonly RouteFields[], now: Date): Promise<Route[]> {
  const inserted: Route[] = [];
  for (const fields of routes) {
    const [row] = await tx.query<RouteRow>(
      `INSERT INTO routes (priority, channel_type, match, connectors, strategy, reroute, quality, created_at,
         updated_at)
       VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6::jsonb, $7::jsonb, $8, $8) RETURNING ${COLUMNS}`,
      [...params(fields), now],
    );
    inserted.push(routeOf(row!));
  }
  if (inserted.length > 0) await changed(tx);
  return inserted;
}

/** Replaces a route's fields; undefined when there is no such route. */
export async function routeUpdate(
  tx: Queryable,
  id: number,
  fields: RouteFields,
  now: Date,
): Promise<Route | undefined> {
  const [row] = await tx.query<RouteRow>(
    `UPDATE routes SET priority = $1, channel_type = $2, match = $3::jsonb, connectors = $4::jsonb, strategy = $5,
       reroute = $6::jsonb, quality = $7::jsonb, updated_at = $8
     WHERE id = $9 RETURNING ${COLUMNS}`,
    [...params(fields), now, id],
  );
  if (row) await changed(tx);
  return row && routeOf(row);
}

export async function routeDelete(tx: Queryable, id: number): Promise<boolean> {
  const rows = await tx.query('DELETE FROM routes WHERE id = $1 RETURNING id', [id]);
  if (rows.length > 0) await changed(tx);
  return rows.length > 0;
}

/**
 * Gives the routes `ids` priorities in their order, the first the highest: from `top` (default: the highest of
 * theirs) down by 1. Answers the ids that are not routes, or the top that would put the last below `lowest` (then
 * nothing changes), else the routes in their new order.
 */
export async function routeReorder(
  tx: Queryable,
  ids: readonly number[],
  top: number | undefined,
  lowest: number,
  now: Date,
): Promise<{ missing: number[] } | { tooLow: number } | { routes: Route[] }> {
  const found = await tx.query<{ id: number; priority: number }>(
    'SELECT id::int AS id, priority FROM routes WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE',
    [ids],
  );
  const known = new Set(found.map((r) => r.id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0) return { missing };
  const from = top ?? Math.max(...found.map((r) => r.priority));
  if (from - ids.length + 1 < lowest) return { tooLow: from };
  const rows = await tx.query<RouteRow>(
    `UPDATE routes r SET priority = $2 - x.n + 1, updated_at = $3
     FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, n) WHERE r.id = x.id
     RETURNING r.id::int AS id, r.priority, r.match, r.connectors, r.strategy, r.reroute, r.quality, r.created_at,
       r.updated_at`,
    [ids, from, now],
  );
  await changed(tx);
  return { routes: rows.map(routeOf).sort((a, b) => b.priority - a.priority) };
}

/**
 * Seeds the table with HERALD_CONFIG's routes once, on the first start that has some (DESIGN 21): from then on the
 * table is the truth and the file's routes are not read again. A start without routes seeds nothing and leaves the
 * table unseeded: an api process of split roles whose workers run the simulators knows none of their routes.
 * Returns how many were added (0 when seeded before).
 */
export async function routeSeed(tx: Queryable, routes: readonly RouteFields[], now: Date): Promise<number> {
  if (routes.length === 0) return 0;
  const [book] = await tx.query<{ seeded: boolean }>('SELECT seeded FROM route_book FOR UPDATE');
  if (book?.seeded) return 0;
  await tx.query('UPDATE route_book SET seeded = true');
  return (await routeInsert(tx, routes, now)).length;
}
