import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest, though their sources are small: they start servers and Herald processes and wait on them
 * (failover 90-200 s, postgresRestart 66 s on the busy machine, each browser file 10-50 s). Vitest runs the files it
 * has no durations for (a fresh clone) largest first, which left these for the end, one worker running them alone
 * while the other had nothing left. Started first, the small fast files fill in beside them.
 */
const LONG_FILES = [/^test\/ha\//, /^test\/faults\//, /\.browser\.test\.ts$/, /^test\/cli\//];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Vitest's order within each part: failed first, then longest by its cache, else largest.
    const sorted = await super.sort(files);
    const long = (spec: TestSpecification): boolean =>
      LONG_FILES.some((pattern) => pattern.test(relative(spec.project.config.root, spec.moduleId)));
    return [...sorted.filter(long), ...sorted.filter((spec) => !long(spec))];
  }
}

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
    sequence: { sequencer: LongFilesFirst },
    reporters: ['default'],
  },
});
