/**
 * `npm run lint:deps` from one cruise: reads `depcruise --output-type json` on stdin, reports the violations of the
 * rules of .dependency-cruiser.cjs, and checks the rule no-capability-cycles, which dependency-cruiser cannot say
 * itself (its folder scope keeps a capability's subfolders apart, so connectors/smpp/ -> config/ would not count as
 * connectors/'s): it fails when the folders of src/ (a file counts for the first folder of its path; type-only
 * imports count; files at the root of src/ are the composition and do not) import each other in a cycle. Lists
 * each mutual pair with the imports that make it, then each longer cycle that remains without the pairs' arrows.
 */
import { readFileSync } from 'node:fs';

interface Cruise {
  modules: { source: string; dependencies: { resolved: string; dependencyTypes: string[] }[] }[];
  summary: {
    violations: { from: string; to: string; rule: { name: string }; cycle?: { name: string }[] }[];
    totalCruised: number;
    totalDependenciesCruised: number;
  };
}

const capabilityOf = (file: string): string | undefined => /^src\/([^/]+)\/./.exec(file)?.[1];

const cruise = JSON.parse(readFileSync(0, 'utf8')) as Cruise;
/** from -> to -> the imports behind the arrow. */
const arrows = new Map<string, Map<string, string[]>>();
for (const module of cruise.modules) {
  const from = capabilityOf(module.source);
  for (const dependency of module.dependencies) {
    const to = capabilityOf(dependency.resolved);
    if (from === undefined || to === undefined || from === to) continue;
    const targets = arrows.get(from) ?? arrows.set(from, new Map()).get(from)!;
    const imports = targets.get(to) ?? targets.set(to, []).get(to)!;
    const typeOnly = dependency.dependencyTypes.includes('type-only') ? ' (type-only)' : '';
    imports.push(`${module.source} -> ${dependency.resolved}${typeOnly}`);
  }
}
const imports = (from: string, to: string): string[] => arrows.get(from)?.get(to) ?? [];

const report: string[] = [];
/** `from>to` of each arrow that has one back. */
const pairs = new Set<string>();
let pairCount = 0;
for (const [from, targets] of [...arrows].sort(([a], [b]) => a.localeCompare(b))) {
  for (const to of [...targets.keys()].sort()) {
    if (from > to || imports(to, from).length === 0) continue;
    pairs.add(`${from}>${to}`).add(`${to}>${from}`);
    pairCount++;
    report.push(`  ${from} <-> ${to}`);
    for (const line of imports(from, to)) report.push(`      ${line}`);
    for (const line of imports(to, from)) report.push(`      ${line}`);
  }
}

/** The shortest cycle through `start` over the arrows that make no pair (breadth first), if any. */
function longerCycle(start: string): string[] | undefined {
  const previous = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const to of [...(arrows.get(node)?.keys() ?? [])].sort()) {
        if (pairs.has(`${node}>${to}`)) continue;
        if (to === start) {
          const path = [node];
          while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
          return [...path, start];
        }
        if (previous.has(to)) continue;
        previous.set(to, node);
        next.push(to);
      }
    }
    frontier = next;
  }
  return undefined;
}
const cycles = new Set<string>();
for (const start of [...arrows.keys()].sort()) {
  const cycle = longerCycle(start);
  if (!cycle) continue;
  // One report per cycle, whichever capability it was found from.
  const members = cycle.slice(0, -1);
  const first = members.indexOf([...members].sort()[0]!);
  const key = [...members.slice(first), ...members.slice(0, first), members[first]].join(' -> ');
  if (cycles.has(key)) continue;
  cycles.add(key);
  report.push(`  ${key}`);
  const hops = key.split(' -> ');
  for (let i = 0; i + 1 < hops.length; i++)
    for (const line of imports(hops[i]!, hops[i + 1]!)) report.push(`      ${line}`);
}

const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
const { violations, totalCruised, totalDependenciesCruised } = cruise.summary;
if (violations.length > 0) {
  const lines = violations.map(({ rule, from, to, cycle }) =>
    cycle
      ? `  error ${rule.name}: ${[from, ...cycle.map((c) => c.name)].join(' → ')}`
      : `  error ${rule.name}: ${from} → ${to}`,
  );
  process.stdout.write(`\n${lines.join('\n')}\n\nx ${count(violations.length, 'dependency violation')}.\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(
    `\n✔ no dependency violations found (${totalCruised} modules, ${totalDependenciesCruised} dependencies cruised)\n`,
  );
}
if (report.length > 0) {
  process.stdout.write(
    `\n  error no-capability-cycles: folders of src/ that import each other (type-only imports count):\n` +
      `${report.join('\n')}\n\nx ${count(pairCount, 'mutual pair')}, ${count(cycles.size, 'longer cycle')}.\n\n`,
  );
  process.exitCode = 1;
} else {
  process.stdout.write('\n✔ no-capability-cycles: no folders of src/ import each other.\n\n');
}
