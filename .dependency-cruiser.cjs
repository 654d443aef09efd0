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
      comment: 'main.ts, cli.ts and context.ts compose capabilities through their index.ts, and routes.ts for routes.',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/([^/]+)/.+', pathNot: ['^src/[^/]+/(index|routes)\\.ts$', BELOW, '^src/(config|http)/'] },
    },
    {
      name: 'layers-know-no-capability',
      comment: 'util, shared, db, errors and types sit below every capability (a type of the configuration aside).',
      severity: 'error',
      from: { path: BELOW },
      to: { path: '^src/', pathNot: [BELOW], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'messages-below-inbound',
      comment:
        'Inbound messages are stored by messages/ (the owner of the messages table and of WhatsApp windows): ' +
        'inbound/ uses messages/, never the other way round.',
      severity: 'error',
      from: { path: '^src/messages/' },
      to: { path: '^src/inbound/' },
    },
    {
      name: 'messages-below-delivery',
      comment:
        'messages/ owns every statement on messages and submissions; delivery/ (submitter, writer, receipts, jobs) ' +
        'calls them and never the other way round.',
      severity: 'error',
      from: { path: '^src/messages/' },
      to: { path: '^src/delivery/' },
    },
    {
      name: 'connectors-below-delivery',
      comment: 'Connectors produce receipts and know nothing of what delivery does with them.',
      severity: 'error',
      from: { path: '^src/connectors/' },
      to: { path: '^src/delivery/' },
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
