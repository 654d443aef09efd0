/** Polls `check` until it returns a value other than undefined or false; fails with `describe()` after the timeout. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; describe?: () => Promise<string> | string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      const detail = options.describe ? await options.describe() : '';
      throw new Error(`condition not met within ${options.timeoutMs ?? 20_000} ms ${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
