import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

/**
 * The rows of the Russian number portability base's files (docs/mnp.md), as the base's operator (ЦНИИС, the
 * "база данных перенесённых номеров") publishes them to operators:
 *
 *   Port_All_<date>_<n>.csv       Number,OwnerId,MNC,Route,RegionCode,PortDate,RowCount
 *   Port_All_Full_<date>_<n>.csv  Number,OwnerId,MNC,Route,RegionCode,PortDate,RowCount,NPId,DonorId,
 *                                 RangeHolderId,OldRoute,OldMNC,ProcessType
 *   9000000000,mMEGAFON,02,D2502,25,2016-09-07T12:00:17+03:00,6121908,...
 *
 * Numbers are 10 digits there (without the country's 7); Herald takes 11 (`79000000000`) too. RowCount is filled on
 * the first row only (the file's row count); it and the Full file's other columns are not needed and ignored.
 */

/** One ported number of the base. */
export interface PortedRow {
  /** E.164 digits, `7` and 10 digits. */
  readonly number: string;
  /** The operator serving the number now, as the base names it (`mMTS`). */
  readonly ownerId: string;
  readonly mnc: number | null;
  readonly route: string | null;
  readonly regionCode: number | null;
  /** As written (ISO 8601 with its offset), for the database to read. */
  readonly portedAt: string | null;
}

/** The columns read, by their header names (any case); the others are ignored. */
const COLUMNS = ['number', 'ownerid', 'mnc', 'route', 'regioncode', 'portdate'] as const;
type Column = (typeof COLUMNS)[number];

const NUMBER = /^\d{10,11}$/;
const SMALL = /^\d{1,3}$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const OWNER_MAX = 64;
const ROUTE_MAX = 16;

/** A file's layout: its separator and where each column read is. */
export class PortingLayout {
  private constructor(
    private readonly separator: string,
    private readonly at: Readonly<Record<Column, number>>,
    /** Whether the first line was a header (else it is a row). */
    readonly headed: boolean,
  ) {}

  /**
   * The layout a file's first line gives: a header naming Number and OwnerId (MNC, Route, RegionCode, PortDate
   * read when there), or, when it starts with a number, no header and the columns of Port_All in their order.
   * `,` separates, or `;` when the header holds no comma. A string says why the line is neither.
   */
  static of(firstLine: string): PortingLayout | string {
    const line = firstLine.replace(/^\uFEFF/, '');
    const separator = line.includes(',') || !line.includes(';') ? ',' : ';';
    const names = line.split(separator).map((name) => unquote(name).toLowerCase());
    if (NUMBER.test(names[0] ?? '')) {
      const at = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<Column, number>;
      return new PortingLayout(separator, at, false);
    }
    const at = Object.fromEntries(COLUMNS.map((c) => [c, names.indexOf(c)])) as Record<Column, number>;
    if (at.number < 0 || at.ownerid < 0)
      return 'The first line must be the header (Number,OwnerId,MNC,Route,RegionCode,PortDate,...) or a row';
    return new PortingLayout(separator, at, true);
  }

  /** A line's row, or why it is not one. */
  row(line: string): PortedRow | string {
    const fields = line.split(this.separator);
    const cell = (column: Column): string => {
      const i = this.at[column];
      return i < 0 ? '' : unquote(fields[i] ?? '');
    };
    const given = cell('number');
    if (!NUMBER.test(given) || (given.length === 11 && given[0] !== '7'))
      return `Invalid Number: ${JSON.stringify(given.slice(0, 20))} (10 digits, or 11 starting with 7)`;
    const ownerId = cell('ownerid');
    if (ownerId === '' || ownerId.length > OWNER_MAX) return `Invalid OwnerId: ${JSON.stringify(ownerId.slice(0, 80))}`;
    const mnc = cell('mnc');
    if (mnc !== '' && !SMALL.test(mnc)) return `Invalid MNC: ${JSON.stringify(mnc.slice(0, 20))}`;
    const route = cell('route');
    if (route.length > ROUTE_MAX) return `Invalid Route: ${JSON.stringify(route.slice(0, 40))}`;
    const region = cell('regioncode');
    if (region !== '' && !SMALL.test(region)) return `Invalid RegionCode: ${JSON.stringify(region.slice(0, 20))}`;
    const date = cell('portdate');
    if (date !== '' && (!DATE.test(date) || Number.isNaN(Date.parse(date))))
      return `Invalid PortDate: ${JSON.stringify(date.slice(0, 40))}`;
    return {
      number: given.length === 10 ? `7${given}` : given,
      ownerId,
      mnc: mnc === '' ? null : Number(mnc),
      route: route === '' ? null : route,
      regionCode: region === '' ? null : Number(region),
      portedAt: date === '' ? null : date,
    };
  }
}

/** A field without its surrounding spaces and quotes (the base writes none; a spreadsheet may). */
function unquote(field: string): string {
  const trimmed = field.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

/**
 * The lines of a byte stream (UTF-8; LF or CRLF ends), each with its number (1-based); blank lines are skipped but
 * counted. Node's readline reads chunk by chunk: a file of any size holds one chunk and one line at a time.
 */
export async function* linesOf(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<{ line: number; text: string }> {
  let line = 0;
  for await (const text of createInterface({ input: Readable.from(chunks), crlfDelay: Infinity })) {
    line++;
    if (text.trim() !== '') yield { line, text };
  }
}
