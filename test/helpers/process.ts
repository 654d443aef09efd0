import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { builtIsFresh } from './built.js';

export const CLI = ['--import', 'tsx', 'src/cli.ts'];

/**
 * The herald command of this checkout: the compiled bin/herald.js while dist/ is built from the sources as they are
 * (a fresh clone's `npm ci` builds it), else the sources through tsx. The same code either way; the compiled one
 * starts on 0.5 s of CPU instead of 1.3 s (tsx's loader hooks for every module), for each of the suite's 30-odd
 * processes: 94 s -> 64 s of CPU for the files that start them. Decided once per test worker.
 */
let command: string[] | undefined;
const heraldCommand = (): string[] => (command ??= builtIsFresh() ? ['bin/herald.js'] : CLI);

export interface Spawned {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in stdout or stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited(): Promise<number | null>;
}

/**
 * Runs the herald command in a child process with the given environment (added to a clean HERALD_-free one): this
 * checkout's (`heraldCommand`), or with `built` the compiled bin/herald.js as `npm start` runs it.
 */
export function spawnHerald(args: string[], env: Record<string, string>, options: { built?: boolean } = {}): Spawned {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('HERALD_') && k !== 'DATABASE_URL'),
  );
  // Built: bin/herald.js run as a program, its first line choosing node's flags and environment, as `npm start` does.
  const [program, programArgs] = options.built
    ? ['bin/herald.js', args]
    : [process.execPath, [...heraldCommand(), ...args]];
  const child = spawn(program, programArgs, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = output.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        void exit.then(() => {
          check();
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before ${pattern}; output:\n${output}`));
          }
        });
        check();
      });
    },
    exited: () => exit,
  };
}
