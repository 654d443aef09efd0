import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type Job, Jobs, QUIET_MAX_MS } from '../../src/shared/jobs.js';
import { TestClock } from '../helpers/clock.js';

const log = pino({ level: 'silent' });

/** Lets every promise chain that needs no I/O run to its end (the jobs here do no I/O). */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A job that counts its runs, and whose runs wait for `gate` (open unless a test closes it). */
function countingJob(name: string, everyMs: number) {
  const state = { runs: 0, active: 0, most: 0, gate: Promise.resolve() };
  const job: Job = {
    name,
    everyMs,
    run: async () => {
      state.active++;
      state.most = Math.max(state.most, state.active);
      await state.gate;
      state.active--;
      state.runs++;
    },
  };
  return { job, state };
}

describe('periodic jobs', () => {
  it('runs each job on its own interval of the clock, the next run counted from the end of the last', async () => {
    const clock = new TestClock();
    const fast = countingJob('fast', 1000);
    const slow = countingJob('slow', 60_000);
    const jobs = new Jobs({ clock, log }, [fast.job, slow.job]);
    jobs.start();
    clock.advance(999);
    await settled();
    expect(fast.state.runs).toBe(0);
    for (let i = 0; i < 60; i++) {
      clock.advance(1000);
      await settled();
    }
    await jobs.run('fast');
    // 60 timed runs and one by hand; slow: one timed, at 60 s.
    expect(fast.state.runs).toBe(61);
    expect(slow.state.runs).toBe(1);
    await jobs.stop();
    clock.advance(3_600_000);
    await settled();
    expect(fast.state.runs).toBe(61);
    expect(clock.timers).toBe(0);
  });

  it('runs one job at a time: a run asked for during another starts after it', async () => {
    const clock = new TestClock();
    const held = countingJob('held', 1000);
    const jobs = new Jobs({ clock, log }, [held.job]);
    let open = (): void => undefined;
    held.state.gate = new Promise((resolve) => (open = resolve));
    const first = jobs.run('held');
    const second = jobs.run('held');
    await settled();
    expect(held.state).toMatchObject({ active: 1, runs: 0 });
    open();
    await Promise.all([first, second]);
    expect(held.state).toMatchObject({ runs: 2, most: 1 });
  });

  it('throws a failed run to whoever asked for it, and keeps running the job on its interval', async () => {
    const clock = new TestClock();
    let runs = 0;
    const jobs = new Jobs({ clock, log }, [
      {
        name: 'flaky',
        everyMs: 1000,
        run: async () => {
          if (++runs === 1) throw new Error('database away');
        },
      },
    ]);
    await expect(jobs.run('flaky')).rejects.toThrow('database away');
    jobs.start();
    clock.advance(1000);
    await jobs.run('flaky');
    expect(runs).toBe(3);
    await jobs.stop();
  });

  it('refuses an interval outside 100 ms to a day, a job named twice, and an unknown job', async () => {
    const clock = new TestClock();
    const job = (everyMs: number, name = 'j'): Job => ({ name, everyMs, run: async () => undefined });
    expect(() => new Jobs({ clock, log }, [job(50)])).toThrow(
      'job j: its interval must be whole milliseconds from 100 to 86400000, not 50',
    );
    expect(() => new Jobs({ clock, log }, [job(1.5)])).toThrow(/not 1.5/);
    expect(() => new Jobs({ clock, log }, [job(86_400_001)])).toThrow(/not 86400001/);
    expect(() => new Jobs({ clock, log }, [job(1000), job(2000)])).toThrow('job j: named twice');
    await expect(new Jobs({ clock, log }, [job(1000)]).run('other')).rejects.toThrow('no job named other');
  });

  it('rests a quiet job until its next work is due while the activity stands still, at most QUIET_MAX_MS', async () => {
    const clock = new TestClock();
    let runs = 0;
    let activity = 0;
    let dueAt = clock.now().getTime() + 5000;
    const job: Job = {
      name: 'quiet',
      everyMs: 1000,
      run: async () => {
        runs++;
        return clock.now().getTime() < dueAt ? { quietUntil: dueAt } : undefined;
      },
    };
    const jobs = new Jobs({ clock, log, activity: () => activity }, [job]);
    jobs.start();
    const tick = async (): Promise<void> => {
      clock.advance(1000);
      await settled();
    };
    await tick();
    expect(runs).toBe(1);
    // Nothing due for 4 more seconds and nothing happened: no run.
    for (let i = 0; i < 3; i++) await tick();
    expect(runs).toBe(1);
    // Its next work falls due: it runs again (and, not quiet, every second).
    await tick();
    expect(runs).toBe(2);
    await tick();
    expect(runs).toBe(3);
    // Quiet again, with nothing due ever: a write of the process (activity) ends its rest at the next tick.
    dueAt = Infinity;
    await tick();
    const quietRuns = runs;
    await tick();
    expect(runs).toBe(quietRuns);
    activity++;
    await tick();
    expect(runs).toBe(quietRuns + 1);
    // And the rest never lasts longer than QUIET_MAX_MS.
    for (let i = 0; i < QUIET_MAX_MS / 1000; i++) await tick();
    expect(runs).toBe(quietRuns + 2);
    await jobs.stop();
  });
});
