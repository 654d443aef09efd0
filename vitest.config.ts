import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two test files at a time, each with its own databases.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
