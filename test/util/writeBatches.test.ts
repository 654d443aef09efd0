import { describe, expect, it } from 'vitest';
import { WriteBatches } from '../../src/util/writeBatches.js';

/** A write that waits until the test lets it end, recording what each statement carried. */
function gatedWrites(): { written: number[][]; release: () => void; write: (items: number[]) => Promise<void> } {
  const written: number[][] = [];
  let gates: (() => void)[] = [];
  return {
    written,
    release: () => {
      const open = gates;
      gates = [];
      for (const gate of open) gate();
    },
    write: (items) =>
      new Promise<void>((resolve) => {
        written.push(items);
        gates.push(resolve);
      }),
  };
}

describe('WriteBatches', () => {
  it('writes the first at once and what arrives meanwhile together, at most `max` a statement', async () => {
    const w = gatedWrites();
    const batches = new WriteBatches(w.write, 3);
    const first = batches.add(1);
    expect(w.written).toEqual([[1]]);
    const rest = [2, 3, 4, 5].map((n) => batches.add(n));
    // Nothing more is written while the first statement runs.
    expect(w.written).toEqual([[1]]);
    w.release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.written).toEqual([[1], [2, 3, 4]]);
    w.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.written).toEqual([[1], [2, 3, 4], [5]]);
    w.release();
    await Promise.all(rest);
  });

  it('writes what is added as the last statement settles (no write is left without a run)', async () => {
    const written: number[][] = [];
    const batches = new WriteBatches<number>(async (items) => void written.push(items), 10);
    // The second add runs in the turn the first one's promise settles, as the run's loop finds the queue empty.
    await batches.add(1).then(() => batches.add(2));
    expect(written).toEqual([[1], [2]]);
  });

  it("settles a failed statement's writes with its error, and goes on with the next", async () => {
    let calls = 0;
    const batches = new WriteBatches<number>(async () => {
      calls++;
      if (calls === 1) throw new Error('deadlock detected');
    }, 10);
    const failed = batches.add(1);
    const next = batches.add(2);
    await expect(failed).rejects.toThrow('deadlock detected');
    await expect(next).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
