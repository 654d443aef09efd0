import { currentLocale, t } from '../shared/i18n/index.js';
import type { Answer, RequestBody } from '../shared/apiClient.js';
import type { CsvTable } from '../shared/parseCsv.js';

/*
 * Dispatches (DESIGN section 15) as the pages show them: one message with {placeholders} for many destinations, each
 * with its substitutions, sent at the dispatch's speed once started. Free of the DOM, so that tests run it in Node.
 */

/** GET /api/v1/dispatch/{id}: the dispatch with its counters, exact at the moment. */
export type Dispatch = Answer<'/api/v1/dispatch/{id}', 'get'>;
export type DispatchStatus = Dispatch['status'];
export type Counters = Dispatch['messages'];
export type DispatchEntry = RequestBody<'/api/v1/dispatch/{id}/messages', 'post'>[number];
/** One answer of POST /api/v1/dispatch/{id}/messages: a messageUuid, or an errorCode (7401 and others) and msg. */
export type AddAnswer = Answer<'/api/v1/dispatch/{id}/messages', 'post'>[number];

/** Destinations per POST /api/v1/dispatch/{id}/messages. */
export const MAX_ADD = 1000;

/** Counter names in the order the pages show them. */
export const COUNTERS = ['total', 'sending', 'sent', 'delivered', 'undelivered', 'unsent'] as const;

/** A counter's column header: "Sending" for `sending`. */
export const counterLabel = (counter: (typeof COUNTERS)[number]): string => t(`counter.${counter}`);

export type Change = 'start' | 'pause' | 'resume' | 'stop';

/**
 * The changes a status offers. The API also takes a pause of a dispatch `awaiting` or `done`, and a stop of one
 * `awaiting`: nothing waits to be sent then, so the pages leave them out.
 */
export const CHANGES: Readonly<Record<DispatchStatus, readonly Change[]>> = {
  initiated: ['start', 'stop'],
  scheduled: ['pause', 'stop'],
  sending: ['pause', 'stop'],
  awaiting: [],
  done: [],
  paused: ['resume', 'stop'],
  stopped: [],
};

/** What a change did, for the status line ("Dispatch March promo started."). */
export const changed = (change: Change, name: string): string => t(`dispatch.changed.${change}`, { name });

/**
 * Whether the dispatch changes by itself: started, with messages not yet final. `initiated` changes only when
 * destinations are added; `done` never, and neither does a paused or stopped one whose messages are all final.
 */
export function isLive(d: Pick<Dispatch, 'status' | 'messages'>): boolean {
  return d.status !== 'initiated' && d.messages.sending + d.messages.sent > 0;
}

/** `{name}`: letters, digits, underscore, as the API reads placeholders. */
const PLACEHOLDER = /\{([\p{L}\p{N}_]+)\}/gu;

/** The placeholders of a text, each once, in order of first use. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** A row of a destinations file: its number as a spreadsheet shows it (the header is row 1), and what is wrong. */
export interface DestinationRow {
  readonly row: number;
  readonly destination: string;
  readonly substitutions: Readonly<Record<string, string>>;
  /** Why the row cannot be a message; the row is not sent when there is any. */
  readonly problems: readonly string[];
}

export interface DestinationFile {
  /** The substitution names: the header's cells after the first. */
  readonly columns: readonly string[];
  readonly rows: readonly DestinationRow[];
  /** What is wrong with the file as a whole. */
  readonly problems: readonly string[];
}

/**
 * Reads a destinations file: a header row, then one row per destination, its first cell the destination and the
 * others substitutions named by the header. A row has problems when its destination is empty, when a placeholder
 * of the text has no column (or the row no cell for it), or when it has more cells than the header.
 */
export function destinationsOf(table: CsvTable, placeholders: readonly string[]): DestinationFile {
  const [header, ...body] = table.rows;
  if (!header) return { columns: [], rows: [], problems: [t('csv.empty')] };
  const columns = header.slice(1).map((name) => name.trim());
  const problems: string[] = [];
  if (body.length === 0) problems.push(t('csv.noRows'));
  const missing = placeholders.filter((p) => !columns.includes(p));
  for (const p of missing) problems.push(t('csv.noColumn', { placeholder: `{${p}}` }));
  if (/^\+?[\d\s()-]{7,}$/.test(header[0]?.trim() ?? '')) problems.push(t('csv.headerLooksLikeRow'));
  const twice = [...new Set(columns.filter((c, i) => c !== '' && columns.indexOf(c) !== i))];
  if (twice.length) problems.push(t('csv.twice', { columns: twice.join(', ') }));

  const rows = body.map((cells, i): DestinationRow => {
    const substitutions: Record<string, string> = {};
    columns.forEach((name, c) => {
      const value = cells[c + 1];
      if (name !== '' && value !== undefined) substitutions[name] = value.trim();
    });
    const destination = (cells[0] ?? '').trim();
    const rowProblems: string[] = [];
    if (destination === '') rowProblems.push(t('csv.noDestination'));
    if (cells.length > header.length)
      rowProblems.push(t('csv.extraCells', { cells: cells.length, columns: header.length }));
    // An empty cell is no value either: "С наступающим, {name}!" would go out as "С наступающим, !".
    for (const p of placeholders)
      if (!substitutions[p])
        rowProblems.push(t(missing.includes(p) ? 'csv.rowNoColumn' : 'csv.rowNoValue', { placeholder: `{${p}}` }));
    return { row: i + 2, destination, substitutions, problems: rowProblems };
  });
  return { columns, rows, problems };
}

/** A text with its placeholders replaced by a row's substitutions (those without a value are left as they are). */
export function substituted(text: string, substitutions: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => substitutions[name] ?? whole);
}

/**
 * Codes of refused rows that a second try may add: every code but 7401 (the row itself cannot be a message: its
 * destination, its substitutions), e.g. 4020 when the funds ran out, 4291 at a limit.
 */
export const retryable = (answer: AddAnswer): boolean =>
  answer.messageUuid === undefined && answer.errorCode !== undefined && answer.errorCode !== 7401;

/** The entry the API takes for a row. */
export function entryOf(row: DestinationRow): DispatchEntry {
  return Object.keys(row.substitutions).length
    ? { destination: row.destination, substitutions: { ...row.substitutions } }
    : { destination: row.destination };
}

/** The items in runs of at most `size`, in order. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Up to 3 hours a bar a minute, beyond them a bar an hour: at most 180 bars either way for a day. */
const MINUTE_BARS_UP_TO = 180;

/**
 * Messages sent per minute (per hour when they span more than 3 hours), from their sent times: one bar per
 * interval from the first to the last, empty intervals included; labels in the browser's time zone.
 */
export function sentPer(times: readonly (string | null)[]): {
  unit: 'minute' | 'hour';
  points: { label: string; value: number }[];
} {
  const ms = times.flatMap((t) => (t ? [Date.parse(t)] : [])).filter((t) => !Number.isNaN(t));
  if (ms.length === 0) return { unit: 'minute', points: [] };
  const first = Math.min(...ms);
  const last = Math.max(...ms);
  const unit = (last - first) / MINUTE_MS < MINUTE_BARS_UP_TO ? 'minute' : 'hour';
  const size = unit === 'minute' ? MINUTE_MS : HOUR_MS;
  const start = Math.floor(first / size);
  const counts = new Array<number>(Math.floor(last / size) - start + 1).fill(0);
  for (const t of ms) counts[Math.floor(t / size) - start]! += 1;
  const withDay = last - first >= 24 * HOUR_MS;
  const label = (at: number) =>
    new Date(at).toLocaleString(currentLocale(), {
      ...(withDay ? { month: 'short', day: 'numeric' } : {}),
      hour: '2-digit',
      minute: '2-digit',
    });
  return { unit, points: counts.map((value, i) => ({ label: label((start + i) * size), value })) };
}
