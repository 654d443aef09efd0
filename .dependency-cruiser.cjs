/**
 * The house rules on imports, checked by `npm run lint:deps` (part of `npm test`). Capabilities (the folders of
 * src/ that own tables and routes) are used by others only through their index.ts; the layers below them (util,
 * shared, db, errors, types) know no capability. Tests and benchmarks may reach inside anything.
 */
const LAYERS = ['util', 'shared', 'db', 'errors', 'types'];
const BELOW = `^src/(${LAYERS.join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'capability-internals',
      comment: "Another capability's files are its own: import what it offers from its index.ts.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: {
        path: '^src/([^/]+)/.+',
        pathNot: [`^src/$1/`, '^src/[^/]+/index\\.ts$', BELOW, '^src/(config|http)/'],
      },
    },
    {
      name: 'root-through-index',
      comment: "main.ts, cli.ts and context.ts compose capabilities through their index.ts too.",
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/([^/]+)/.+', pathNot: ['^src/[^/]+/index\\.ts$', BELOW, '^src/(config|http)/'] },
    },
    {
      name: 'layers-know-no-capability',
      comment: 'util, shared, db, errors and types sit below every capability.',
      severity: 'error',
      from: { path: BELOW },
      to: { path: '^src/', pathNot: [BELOW] },
    },
    {
      name: 'no-cycles-between-capabilities',
      comment: 'Two capabilities never import each other (messages and inbound, say): one owns what both need.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, path: '^src/([^/]+)/', pathNot: ['^src/$1/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|bench|web|dist|scripts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
