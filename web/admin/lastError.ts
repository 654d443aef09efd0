/** A connector's last error as the console shows it: a line to read, and the whole text when that is not all of it. */
export interface ReadableError {
  readonly summary: string;
  readonly whole: string | undefined;
}

/** Longer than this, an error's line is cut and its whole text offered apart. */
const SUMMARY_CHARS = 160;

/** The leaves of a parsed JSON answer, each with the name of the field that holds it: `[["message", "Bad sender"]]`. */
function leaves(value: unknown, key = ''): [string, string][] {
  if (value === null || typeof value !== 'object') return [[key, String(value)]];
  const entries = Array.isArray(value) ? value.map((v, i) => [key || String(i), v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => leaves(v, k));
}

/**
 * A provider's answer is often JSON after a prefix (`sms-x: 400 {"error":{"code":17,"message":"Bad sender"}}`):
 * shown as `sms-x: 400: code 17; message Bad sender`, with the raw text under "Whole text".
 */
export function readableError(text: string): ReadableError {
  const start = text.search(/[{[]/);
  if (start >= 0) {
    try {
      const fields = leaves(JSON.parse(text.slice(start)) as unknown)
        .filter(([, v]) => v !== '')
        .map(([k, v]) => (k ? `${k} ${v}` : v));
      const prefix = text
        .slice(0, start)
        .trim()
        .replace(/[:\s]+$/, '');
      const summary = [prefix, fields.join('; ')].filter(Boolean).join(': ');
      return { summary: cut(summary), whole: text };
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  return { summary: cut(text), whole: text.length > SUMMARY_CHARS ? text : undefined };
}

const cut = (text: string) => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text);
