/** Timers a simulator owns, so that stopping it cancels everything it still meant to do. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();

  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
  }

  clear(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
