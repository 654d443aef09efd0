/**
 * npm run test:timing: the suite's timings against the targets of the house (docs/testing.md).
 *   --ci       time `.ci/run` on a fresh clone of this checkout's HEAD (with ../shared beside it), target 6 min
 *   --runs N   run `npm test` N times in a row (default 3) in this checkout, each must pass
 *   --busy     keep one core busy meanwhile (`yes > /dev/null`), as the target asks
 * Prints each run's wall time and outcome and exits non-zero when a run fails or misses its target.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const CI_TARGET_S = 6 * 60;

const { values } = parseArgs({
  options: {
    ci: { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
    busy: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 0 || runs > 20) throw new Error('--runs: an integer from 0 to 20');

const root = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

function timed(label: string, command: string, args: string[], cwd: string): Promise<{ seconds: number; ok: boolean }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `${label}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s ` +
          `(load average now ${loadavg()[0]!.toFixed(1)})`,
      );
      resolve({ seconds, ok: code === 0 });
    });
  });
}

console.log(
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
const busy = values.busy ? spawn('sh', ['-c', 'yes > /dev/null'], { stdio: 'ignore', detached: true }) : undefined;
if (busy) console.log('one core kept busy by `yes > /dev/null`');
let failed = false;
try {
  if (values.ci) {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-ci-'));
    try {
      const clone = path.join(dir, 'herald');
      spawnSync('git', ['clone', '-q', root, clone], { stdio: 'inherit' });
      const shared = path.resolve(root, '..', 'shared');
      if (existsSync(shared)) symlinkSync(shared, path.join(dir, 'shared'));
      const ci = await timed('.ci/run on a fresh clone', 'bash', ['.ci/run'], clone);
      console.log(`  target: under ${CI_TARGET_S / 60} min: ${ci.ok && ci.seconds < CI_TARGET_S ? 'met' : 'MISSED'}`);
      failed ||= !ci.ok || ci.seconds >= CI_TARGET_S;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (let i = 1; i <= runs; i++) {
    const run = await timed(`npm test, run ${i} of ${runs}`, 'npm', ['test', '--silent'], root);
    failed ||= !run.ok;
  }
} finally {
  if (busy?.pid) process.kill(-busy.pid);
}
process.exit(failed ? 1 : 0);
