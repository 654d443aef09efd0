/**
 * A count of a sampling test (runs, rounds) from the environment variable `name`, for a deep run (docs/testing.md,
 * Deep runs), or `fallback`, the count of `npm test`. Anything but a positive integer stops the file.
 */
export function runCount(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${name}: not a positive integer (${value})`);
  return count;
}
