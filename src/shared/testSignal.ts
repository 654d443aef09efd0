/**
 * A point of a loop that tests wait for ("a claim round ended", "a batch was committed"), after river's testsignal:
 * the loop fires it with a value, a test awaits the next firing instead of polling for the loop's effects. Outside
 * tests no one waits, and a firing costs a length check.
 */
export class TestSignal<T> {
  private waiters: ((value: T) => void)[] = [];

  signal(value: T): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(value);
  }

  /** The value of the first firing after this call (tests). */
  next(): Promise<T> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
