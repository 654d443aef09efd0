import type { Queryable } from '../../src/db/db.js';

/** One node of a query plan, as EXPLAIN (FORMAT JSON) gives it. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Relation Name'?: string;
  readonly 'Subplan Name'?: string;
  /** EXPLAIN ANALYZE's, each a mean over the node's loops. */
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly Plans?: PlanNode[];
}

/**
 * The plan PostgreSQL makes for the statement that `run` sends through the Queryable it is given (a typed query
 * function, called as the code calls it): the statement is explained, not run, and answers `answer`'s rows (none by
 * default); of several statements, the last one's plan.
 */
export async function planOf(
  db: Queryable,
  run: (explaining: Queryable) => Promise<unknown>,
  options: {
    partitions?: boolean;
    answer?: (params: readonly unknown[]) => unknown[];
    /** Shown to `run` as a database, not a transaction: for statements that run differently outside one. */
    asDb?: boolean;
    /**
     * The generic plan (made once for any values, as the PostgreSQL driver runs a statement marked by genericPlan),
     * not the one made for these values. `db` must be a transaction: the statement is prepared on its connection.
     */
    generic?: boolean;
    /**
     * With `generic`: the plan made now, run once, then `meanwhile` (rows added, unanalysed), then run again under
     * EXPLAIN ANALYZE: what a connection's plan made on the tables as they were does once they have changed.
     */
    later?: { meanwhile: () => Promise<unknown> };
  } = {},
): Promise<PlanNode> {
  let plan: PlanNode | undefined;
  const explaining: Queryable = {
    ...(options.asDb ? { transaction: () => Promise.reject(new Error('planOf explains single statements only')) } : {}),
    async query<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      // Planner settings (a SELECT of set_config that reads no table, local to the transaction) are made, not
      // explained.
      if (/^\s*SELECT\b(?:(?!\bFROM\b)[^;])*\bset_config\(/i.test(sql)) return db.query<R>(sql, params);
      // With `later`, the statement's own plan is what is wanted: one that reads no table (a lock taken first) runs.
      if (options.later && !/\bFROM\b/i.test(sql)) return db.query<R>(sql, params);
      const [row] = options.generic
        ? await explainGeneric(db, sql, params ?? [], options.later)
        : await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      plan = row!['QUERY PLAN'][0]!.Plan;
      return (options.answer?.(params ?? []) ?? []) as R[];
    },
    exec: () => Promise.reject(new Error('planOf explains single statements only')),
  };
  await run(explaining);
  if (!plan) throw new Error('no statement was sent');
  return options.partitions ? plan : asUnpartitioned(plan, await partitionIndexParents(db));
}

/**
 * EXPLAIN of `sql`'s generic plan for `params`: prepared, and executed with generic plans forced in `tx`; with `later`,
 * executed first, then explained with ANALYZE after `later.meanwhile` (see planOf).
 */
async function explainGeneric(
  tx: Queryable,
  sql: string,
  params: readonly unknown[],
  later?: { meanwhile: () => Promise<unknown> },
): Promise<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]> {
  // A name of its own: a prepared statement outlives a transaction that failed.
  const name = `herald_plan_of_${++explained}`;
  await tx.query(`PREPARE ${name} AS ${sql}`);
  const [mode] = await tx.query<{ mode: string }>(
    `SELECT current_setting('plan_cache_mode') AS mode, set_config('plan_cache_mode', 'force_generic_plan', true)`,
  );
  // A utility statement takes no parameters: the values go in as literals, as the server quotes them (each sent as
  // the type the statement gives it: an engine serialises an array by its type).
  const [prepared] = await tx.query<{ types: string[] }>(
    'SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = $1',
    [name],
  );
  const quote = params.map((_, i) => `quote_nullable($${i + 1}::${prepared!.types[i]})`);
  const [quoted] = await tx.query<{ values: string[] }>(`SELECT ARRAY[${quote.join(', ')}]::text[] AS values`, params);
  const args = quoted!.values.join(', ');
  const execute = `EXECUTE ${name}${args ? `(${args})` : ''}`;
  if (later) {
    await tx.query(execute);
    await later.meanwhile();
  }
  const rows = await tx.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `EXPLAIN (${later ? 'ANALYZE, ' : ''}FORMAT JSON) ${execute}`,
  );
  // Each run by the generic plan counts, the one made first and kept (rows added invalidate no plan).
  const [made] = await tx.query<{ generic: number }>(
    'SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE name = $1',
    [name],
  );
  if (made?.generic !== (later ? 2 : 1)) throw new Error(`no generic plan was made of ${name}`);
  await tx.query(`SELECT set_config('plan_cache_mode', $1, true)`, [mode!.mode]);
  await tx.query(`DEALLOCATE ${name}`);
  return rows;
}
let explained = 0;

/** The index of a partitioned table that each of its partitions' indexes belongs to, by name. */
async function partitionIndexParents(db: Queryable): Promise<Map<string, string>> {
  const rows = await db.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relkind = 'I'`,
  );
  return new Map(rows.map((r) => [r.child, r.parent]));
}

/**
 * The plan as it reads over a partitioned table's own indexes (messages: docs/scaling.md, Partitions): an Append or
 * Merge Append of the same scan on each partition reads as that scan, named by the partitioned table's index.
 */
function asUnpartitioned(node: PlanNode, parents: Map<string, string>): PlanNode {
  const index = node['Index Name'];
  const plans = node.Plans?.map((child) => asUnpartitioned(child, parents));
  const renamed: PlanNode = {
    ...node,
    ...(index !== undefined ? { 'Index Name': parents.get(index) ?? index } : {}),
    ...(plans ? { Plans: plans } : {}),
  };
  const appended = node['Node Type'] === 'Append' || node['Node Type'] === 'Merge Append';
  if (!appended || !plans || plans.length === 0) return renamed;
  const same = plans.every(
    (p) => p['Node Type'] === plans[0]!['Node Type'] && p['Index Name'] === plans[0]!['Index Name'],
  );
  return same ? { ...plans[0]!, 'Subplan Name': node['Subplan Name'] ?? plans[0]!['Subplan Name'] } : renamed;
}

/** The nodes of a plan's subtree named `subplan` (a CTE: `CTE due`), as node type and index name. */
export function subplanNodes(plan: PlanNode, subplan: string): { type: string; index: string | undefined }[] {
  return nodesOf(subtree(plan, subplan)).map((n) => ({ type: n['Node Type'], index: n['Index Name'] }));
}

/** A plan's subtree named `subplan`. */
function subtree(plan: PlanNode, subplan: string): PlanNode {
  const find = (node: PlanNode): PlanNode | undefined =>
    node['Subplan Name'] === subplan ? node : (node.Plans ?? []).map(find).find((n) => n !== undefined);
  const root = find(plan);
  if (!root) throw new Error(`no ${subplan} in the plan`);
  return root;
}

/**
 * The rows of `table` and of its partitions that a plan's subtree named `subplan` read (EXPLAIN ANALYZE: planOf with
 * `later` and `partitions`), those its filters removed included.
 */
export function rowsRead(plan: PlanNode, subplan: string, table: string): number {
  return nodesOf(subtree(plan, subplan))
    .filter((n) => n['Relation Name'] === table || n['Relation Name']?.startsWith(`${table}_`))
    .reduce(
      (sum, n) => sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 0),
      0,
    );
}

/** Every node of a plan, the root first. */
function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/** The indexes a plan reads, each once. */
export function indexesOf(plan: PlanNode): string[] {
  return [...new Set(nodesOf(plan).flatMap((n) => n['Index Name'] ?? []))];
}

/** The scans of a table in a plan, as node type and index: `Index Scan callback_events_pkey`, `Seq Scan`. */
export function scansOf(plan: PlanNode, table: string): string[] {
  return nodesOf(plan)
    .filter((n) => n['Relation Name'] === table)
    .map((n) => [n['Node Type'], n['Index Name']].filter((x) => x !== undefined).join(' '));
}

/** The tables a plan reads, each once (partitions by their own names: planOf with `partitions`). */
export function relationsOf(plan: PlanNode): Set<string> {
  return new Set(nodesOf(plan).flatMap((n) => n['Relation Name'] ?? []));
}
