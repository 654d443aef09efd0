import type { Herald } from '../../src/main.js';
import type { TestSignal } from '../../src/shared/testSignal.js';

type Check<T> = () => Promise<T | undefined | false> | T | undefined | false;

interface WaitOptions {
  readonly timeoutMs?: number;
  readonly describe?: () => Promise<string> | string;
}

const DEFAULT_TIMEOUT_MS = 20_000;

/** Whether `promise` settles within `ms` of real time (the test clock may stand still). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `check` now and again after each firing of `signal`, until it answers a value other than undefined or false:
 * the wait for what a loop does (a batch the writer committed, a round of the callback sender), without polling.
 * Fails with `describe()` when no firing came, or none was enough, within the timeout.
 */
export async function untilSignalled<T, S>(
  signal: TestSignal<S>,
  check: Check<T>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Asked for before the check: a firing while it runs is not missed.
    const fired = signal.next();
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (!(await within(fired, deadline - Date.now()))) {
      const detail = options.describe ? await options.describe() : '';
      throw new Error(`condition not met within ${timeoutMs} ms of the loop's signals ${detail}`);
    }
  }
}

/**
 * The value of the first firing of `signal` from now on that `accept` takes. Ask before the action that makes the
 * loop fire, and await after it.
 */
export async function signalled<S>(
  signal: TestSignal<S>,
  accept: (value: S) => boolean = () => true,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<S> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const fired = signal.next();
    if (!(await within(fired, deadline - Date.now())))
      throw new Error(`no firing of the loop's signal that was wanted came within ${timeoutMs} ms`);
    const value = await fired;
    if (accept(value)) return value;
  }
}

/**
 * Checks after each batch `herald`'s delivery writer commits: submissions, retries, statuses and receipts reach the
 * messages table there, and nowhere else while the jobs are not run.
 */
export const untilWritten = <T>(herald: Herald, check: Check<T>, options?: WaitOptions): Promise<T> =>
  untilSignalled(herald.writer.testSignals.flushed, check, options);

/**
 * Checks after each round of `herald`'s callback sender: a round forms and claims deliveries, and each attempt, once
 * its POST is answered (or timed out) and recorded, sends the sender round again.
 */
export const untilCallbackRound = <T>(herald: Herald, check: Check<T>, options?: WaitOptions): Promise<T> =>
  untilSignalled(herald.callbackSender!.testSignals.round, check, options);
