/**
 * Writes of many callers gathered into few statements: the first write goes at once, and the writes that arrive
 * while one is under way go together in the next, up to `max` at a time. Each caller's promise settles when the
 * statement that carried its item has (with its error, when it failed). No write waits for a timer: a lone one costs
 * what it cost alone, and under load a statement carries what its predecessor's time let gather.
 */
export class WriteBatches<T> {
  private readonly queue: { readonly item: T; readonly settle: (error?: unknown) => void }[] = [];
  /** A run is writing; cleared in the same turn as its loop finds the queue empty, so no write is left behind. */
  private running = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly max: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.max);
      try {
        await this.write(batch.map((b) => b.item));
        for (const b of batch) b.settle();
      } catch (error) {
        for (const b of batch) b.settle(error ?? new Error('write failed'));
      }
    }
    this.running = false;
  }
}
