/**
 * The house rules on imports, checked by `npm run lint:deps` (part of `npm test`) over src/ (tests, benchmarks,
 * scripts and web/ are not cruised, and may reach inside anything):
 * - no-runtime-cycles: no file reaches itself through imports that run (type-only imports are erased at build).
 * - no-capability-cycles: no folders of src/ import each other, in a pair or round a longer cycle, type-only
 *   imports included; a file counts for the first folder of its path, and the files at the root of src/ (main.ts,
 *   cli.ts, context.ts, logger.ts: the composition) do not count. dependency-cruiser cannot say this (its folder
 *   scope keeps subfolders apart), so scripts/lintDeps.ts checks it on this configuration's JSON output.
 * - capability-internals, root-through-index: a capability (a folder of src/ other than the layers below) is used
 *   by other folders and by the root only through its index.ts (the root also registers its routes.ts); a layer's
 *   files may be imported one by one.
 * - layers-know-no-capability: the layers below the capabilities (util, shared, db, errors, types, http) import
 *   only each other and context.ts (http/server.ts names the AppContext its route modules are given). http/ is the
 *   server shell and plumbing (schemas, body limits, JSON shape, rate limits, client addresses, the bearer checks
 *   and limits of auth.ts); token authentication belongs to accounts/.
 * - config-above-capabilities: config/ reads the defaults of delivery/ and callbacks/ and the settings of
 *   connectors/, so only the root imports it at run time (demo/ and simulators/ name its types).
 * - messages-below-inbound, messages-below-delivery, connectors-below-delivery: as their comments say.
 */
const LAYERS = ['util', 'shared', 'db', 'errors', 'types', 'http'];
const BELOW = `^src/(${LAYERS.join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'no-runtime-cycles',
      comment: 'A module must not import itself through imports that run: which of them loads first is left to chance.',
      severity: 'error',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'capability-internals',
      comment: "Another capability's files are its own: import what it offers from its index.ts.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: {
        path: '^src/([^/]+)/.+',
        pathNot: [`^src/$1/`, '^src/[^/]+/index\\.ts$', BELOW],
      },
    },
    {
      name: 'root-through-index',
      comment: 'main.ts, cli.ts and context.ts compose capabilities through their index.ts, and routes.ts for routes.',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/([^/]+)/.+', pathNot: ['^src/[^/]+/(index|routes)\\.ts$', BELOW] },
    },
    {
      name: 'layers-know-no-capability',
      comment:
        'util, shared, db, errors, types and http sit below every capability and know none, not even its types; ' +
        'http/server.ts names the AppContext route modules are given.',
      severity: 'error',
      from: { path: BELOW },
      to: { path: '^src/', pathNot: [BELOW, '^src/context\\.ts$'] },
    },
    {
      name: 'config-above-capabilities',
      comment:
        "config/ takes delivery's and callbacks' defaults and the connectors' settings: only the root imports it " +
        'at run time, and capabilities are given their settings (the context, options).',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: '^src/config/' },
      to: { path: '^src/config/', dependencyTypesNot: ['type-only'] },
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
