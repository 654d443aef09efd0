import { herald, HeraldError, showValue } from '../errors/catalogue.js';
import { type Channel, isChannel } from '../shared/channels.js';
import { TRAFFIC_TYPES, type TrafficType } from '../shared/trafficTypes.js';
import { normaliseDestination } from '../numbering/index.js';
import { csvField, parseCsv } from '../shared/csv.js';
import type { NewStopEntry, StopEntry, StopSource } from './stopListSql.js';

/** The columns of an export, in order; an import reads those it knows by their header and ignores the others. */
export const CSV_COLUMNS = [
  'id',
  'number',
  'channelType',
  'senderName',
  'trafficTypes',
  'source',
  'comment',
  'createdTime',
] as const;

/** Longest sender name and comment an entry takes (the API's limits). */
export const SENDER_NAME_MAX = 64;
export const COMMENT_MAX = 1000;

/** A row of an import that cannot be an entry, and why. */
export interface RowError {
  readonly line: number;
  readonly msg: string;
}

/**
 * Reads an import: a header row naming the columns (`number` required; `channelType`, `senderName`, `trafficTypes`
 * (separated by `;`, `,` or spaces) and `comment` read; the others of an export ignored), then one entry a row.
 * Returns the valid entries and each other row's error; a missing header is one error on line 1 and no entry.
 */
export function readImport(
  text: string,
  source: StopSource,
): { entries: NewStopEntry[]; errors: RowError[]; rows: number } {
  const [header, ...rows] = parseCsv(text);
  if (!header) return { entries: [], errors: [], rows: 0 };
  const names = header.fields.map((f) => f.trim());
  const column = (name: string): number => names.indexOf(name);
  const at = {
    number: column('number'),
    channelType: column('channelType'),
    senderName: column('senderName'),
    trafficTypes: column('trafficTypes'),
    comment: column('comment'),
  };
  if (at.number < 0)
    return { entries: [], errors: [{ line: header.line, msg: 'The header row must name a number column' }], rows: 0 };
  const entries: NewStopEntry[] = [];
  const errors: RowError[] = [];
  for (const { line, fields } of rows) {
    const cell = (i: number): string | null => (i < 0 ? null : fields[i]?.trim() || null);
    const entry = entryOf(
      {
        number: cell(at.number),
        channelType: cell(at.channelType),
        senderName: cell(at.senderName),
        trafficTypes:
          cell(at.trafficTypes)
            ?.split(/[;,\s]+/)
            .filter(Boolean) ?? null,
        comment: cell(at.comment),
      },
      source,
    );
    if (entry instanceof HeraldError) errors.push({ line, msg: entry.message });
    else entries.push(entry);
  }
  return { entries, errors, rows: rows.length };
}

/** What an entry is given as, from the API or a CSV row: checked by {@link entryOf}. */
export interface EntryInput {
  readonly number: unknown;
  readonly channelType?: unknown;
  readonly senderName?: unknown;
  readonly trafficTypes?: unknown;
  readonly comment?: unknown;
}

/** An entry to add from what was given, or the error that says which field is wrong. */
export function entryOf(input: EntryInput, source: StopSource): NewStopEntry | HeraldError {
  const invalid = (field: string, value: unknown) => herald('invalidField', { field, value: showValue(value) });
  const destination = normaliseDestination(input.number);
  if (!destination) return invalid('number', input.number ?? null);
  const { channelType, senderName, trafficTypes, comment } = input;
  if (channelType != null && !isChannel(channelType)) return invalid('channelType', channelType);
  if (
    senderName != null &&
    (typeof senderName !== 'string' || senderName === '' || senderName.length > SENDER_NAME_MAX)
  )
    return invalid('senderName', senderName);
  const types = trafficTypes as unknown[] | null | undefined;
  if (types != null && (types.length === 0 || types.some((t) => !(TRAFFIC_TYPES as readonly unknown[]).includes(t))))
    return invalid('trafficTypes', types);
  if (comment != null && (typeof comment !== 'string' || comment.length > COMMENT_MAX))
    return invalid('comment', comment);
  return {
    number: destination.msisdn,
    channelType: (channelType as Channel | null | undefined) ?? null,
    senderName: (senderName as string | null | undefined) ?? null,
    trafficTypes: (types as TrafficType[] | null | undefined) ?? null,
    source,
    comment: (comment as string | null | undefined) ?? null,
  };
}

/** The header row of an export. */
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/** An entry as a row of an export. */
export function csvRow(e: StopEntry): string {
  const fields = [
    e.id,
    e.number,
    e.channelType,
    e.senderName,
    e.trafficTypes?.join(';') ?? null,
    e.source,
    e.comment,
    e.createdAt.toISOString(),
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}
