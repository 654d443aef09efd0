import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BenchFigure, RESULTS_FILE } from './lib.js';

/*
 * `roles` against another commit (BENCH_ROLES_AGAINST, issue 35: "PostgreSQL CPU per message at most half of the code
 * before, in alternating runs in the same hour, print both"). The other commit is built in a worktree of its own with
 * this tree's benchmark copied over it (bench/ and test/ha/servers.ts; node_modules shared), so both trees are measured
 * by the same code; bench/run.ts loads a benchmark's module only when it runs, so an older tree's code needs only what
 * `roles` uses. Each run is a child process of its tree (`BENCH_ONLY=roles`), the trees alternating, the one that goes
 * first flipped each pair.
 */

export interface RolesAgainstOptions {
  /** The commit (or any name git resolves) to measure against. */
  readonly commit: string;
  /** Pairs of runs, one in each tree; the tree that goes first is flipped each pair. */
  readonly pairs: number;
}

/** PostgreSQL's CPU a message, plain and with callbacks, and the WAL, of one run. */
interface RolesRun {
  readonly cpu: number;
  readonly cpuCallbacks: number;
  readonly wal: number;
  readonly walCallbacks: number;
}

/**
 * Builds `options.commit` in a worktree, runs `roles` in this tree and in it, alternating, and removes the worktree
 * (also when a run fails, which throws, or the benchmark is interrupted). Returns PostgreSQL's CPU a message, this tree
 * over the other on the means, without and with callbacks, against the target of 0.5.
 */
export async function benchRolesAgainst(options: RolesAgainstOptions): Promise<BenchFigure[]> {
  // "+": this tree has changes not committed (untracked files included), so its commit alone is not what ran.
  const here = git(['rev-parse', '--short', 'HEAD']) + (git(['status', '--porcelain']) ? '+' : '');
  const other = git(['rev-parse', '--short', options.commit]);
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-against-'));
  const runs: { here: RolesRun[]; other: RolesRun[] } = { here: [], other: [] };
  let running: ChildProcess | undefined;
  // A run lasts minutes: one interrupted stops the run under way and leaves no worktree behind either.
  const interrupted = (): void => {
    running?.kill('SIGINT');
    removeTree(dir);
    process.exit(130);
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    buildTree(other, dir);
    for (let pair = 0; pair < options.pairs; pair++) {
      const order = pair % 2 === 0 ? (['other', 'here'] as const) : (['here', 'other'] as const);
      for (const tree of order) {
        const run = await rolesRun(tree === 'here' ? process.cwd() : dir, (child) => (running = child));
        runs[tree].push(run);
        process.stdout.write(
          `  pair ${pair + 1}: ${tree === 'here' ? here : other} PostgreSQL CPU a message ${ms(run.cpu)} ms, ` +
            `${ms(run.cpuCallbacks)} ms with callbacks; WAL ${Math.round(run.wal)} B, ` +
            `${Math.round(run.walCallbacks)} B\n`,
        );
      }
    }
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    removeTree(dir);
  }
  const mean = (list: readonly RolesRun[], key: keyof RolesRun): number =>
    list.reduce((sum, run) => sum + run[key], 0) / list.length;
  const each = (list: readonly RolesRun[], key: keyof RolesRun): string => list.map((run) => ms(run[key])).join(' / ');
  const figure = (key: 'cpu' | 'cpuCallbacks', label: string): BenchFigure => ({
    name: `roles against ${other}: PostgreSQL CPU per message${label}, ${here} / ${other}`,
    value: mean(runs.here, key) / mean(runs.other, key),
    unit: 'x',
    target: { op: '<=', value: 0.5 },
    note:
      `${options.pairs} alternating pairs, the means: ` +
      `${here} ${ms(mean(runs.here, key))} ms (${each(runs.here, key)}), ` +
      `${other} ${ms(mean(runs.other, key))} ms (${each(runs.other, key)})`,
  });
  return [figure('cpu', ''), figure('cpuCallbacks', ', with callbacks')];
}

const ms = (value: number): string => value.toFixed(3);

function git(args: readonly string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The commit checked out in `dir` (a detached worktree), with this tree's benchmark over it, built. */
function buildTree(commit: string, dir: string): void {
  process.stdout.write(`  building ${commit} in ${dir}...\n`);
  git(['worktree', 'add', '--detach', '--force', dir, commit]);
  for (const part of ['bench', path.join('test', 'ha', 'servers.ts')])
    cpSync(part, path.join(dir, part), { recursive: true, force: true });
  symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
}

function removeTree(dir: string): void {
  try {
    git(['worktree', 'remove', '--force', dir]);
  } catch {
    // Not added yet (stopped before), or half added: the folder goes below, and git forgets a worktree whose folder
    // is gone.
  }
  rmSync(dir, { recursive: true, force: true });
  git(['worktree', 'prune']);
}

/** One `roles` run in the tree at `dir`, a child process; its figures are read from the results file it writes. */
async function rolesRun(dir: string, started: (child: ChildProcess) => void): Promise<RolesRun> {
  // This process's knobs (BENCH_ROLES_MESSAGES, BENCH_E2E_WARMUP, ...), without BENCH_ROLES_AGAINST (each child would
  // build a tree again, and so on), nor the knobs whose output this leaves unread (the breakdown, which also changes
  // the server's settings; the verbose report, which an older tree's code may not support).
  const {
    BENCH_ROLES_AGAINST: _against,
    BENCH_ROLES_BREAKDOWN: _breakdown,
    BENCH_VERBOSE: _verbose,
    ...inherited
  } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts'], {
    cwd: dir,
    env: { ...inherited, BENCH_ONLY: 'roles' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': the output is read to its end first, for the error below.
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`roles in ${dir} exited with ${code}:\n${output.slice(-4000)}`);
  const { figures } = JSON.parse(readFileSync(path.join(dir, RESULTS_FILE), 'utf8')) as {
    figures: BenchFigure[];
  };
  const value = (name: string): number => {
    const found = figures.find((f) => f.name === name);
    if (!found) throw new Error(`roles in ${dir} printed no "${name}"`);
    return found.value;
  };
  return {
    cpu: value('roles: PostgreSQL CPU per message'),
    cpuCallbacks: value('roles, with callbacks: PostgreSQL CPU per message'),
    wal: value('roles: WAL per message'),
    walCallbacks: value('roles, with callbacks: WAL per message'),
  };
}
