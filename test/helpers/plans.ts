import type { Queryable } from '../../src/db/db.js';

/** One node of a query plan, as EXPLAIN (FORMAT JSON) gives it. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Subplan Name'?: string;
  readonly Plans?: PlanNode[];
}

/**
 * The plan PostgreSQL makes for the statement that `run` sends through the Queryable it is given (a typed query
 * function, called as the code calls it): the statement is explained, not run.
 */
export async function planOf(db: Queryable, run: (explaining: Queryable) => Promise<unknown>): Promise<PlanNode> {
  let plan: PlanNode | undefined;
  const explaining: Queryable = {
    async query<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      plan = row!['QUERY PLAN'][0]!.Plan;
      return [];
    },
    exec: () => Promise.reject(new Error('planOf explains single statements only')),
  };
  await run(explaining);
  if (!plan) throw new Error('no statement was sent');
  return plan;
}

/** The nodes of a plan's subtree named `subplan` (a CTE: `CTE due`), as node type and index name. */
export function subplanNodes(plan: PlanNode, subplan: string): { type: string; index: string | undefined }[] {
  const find = (node: PlanNode): PlanNode | undefined =>
    node['Subplan Name'] === subplan ? node : (node.Plans ?? []).map(find).find((n) => n !== undefined);
  const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];
  const root = find(plan);
  if (!root) throw new Error(`no ${subplan} in the plan`);
  return flatten(root).map((n) => ({ type: n['Node Type'], index: n['Index Name'] }));
}
