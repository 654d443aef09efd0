import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Files of one worker share its loaded modules (and its PGlite image) instead of loading the whole of Herald
    // again per file: 353 s -> 219 s for the PGlite half on the 2-core machine. Tests keep no state in modules.
    isolate: false,
    // Two cores: two test files at a time, each with its own databases.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
