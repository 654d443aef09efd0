/*
 * A batch's rows as one typed array a column, read back with `unnest` (rows aligned by position): for the hot batch
 * statements, whose rows the server reads faster this way than as one JSON array through jsonb_to_recordset
 * (docs/scaling.md, "The hot statements' rows as arrays"). A nested value (a JSON document, an array of its own)
 * travels as text and is cast in the statement: as an element of a jsonb[] its text is scanned twice and cost 3 times
 * more. A column of JSON documents travels as one text, the documents joined by a character JSON's text never holds
 * raw, so that neither side quotes or unquotes them (docs/scaling.md, "The arrays' text").
 */

import { isoMs } from '../util/time.js';

/** What every column of a batch says. */
interface ColumnType {
  /** Its PostgreSQL type. */
  readonly type: string;
  /**
   * How a nested value travels, cast to `type` in the statement: `text`, as an array of texts (an array of its own,
   * written by {@link arrayLiteral}); `json`, as JSON.stringify's texts joined by {@link JSON_SEPARATOR}.
   */
  readonly as?: 'text' | 'json';
}

/**
 * What separates the documents of a JSON column: U+001E (record separator), which JSON.stringify never writes raw (it
 * writes every control character inside a string as an escape). An empty document is NULL: no JSON text is empty.
 */
const JSON_SEPARATOR = '\x1e';

/**
 * One column of a batch: the rows' field of its name, or what `value` makes of a row. Undefined and null read as
 * NULL.
 */
export type ArrayColumn<T> = ColumnType &
  (
    | { readonly name: keyof T & string; readonly value?: undefined }
    | { readonly name: string; readonly value: (row: T) => unknown }
  );

/**
 * The rows of `columns` as a relation: `SELECT <columns> FROM unnest($first::type[], ...) AS alias(<columns>)`, the
 * parameters from `first` on being {@link columnValues}'. The same text every call: a named statement's.
 */
export function unnestSelect<T>(columns: readonly ArrayColumn<T>[], first: number, alias: string): string {
  const arrays = columns.map((c, i) =>
    c.as === 'json' ? `string_to_array($${first + i}::text, chr(30), '')` : `$${first + i}::${c.as ?? c.type}[]`,
  );
  const names = columns.map((c) => c.name);
  const select = columns.map((c) => (c.as ? `${alias}.${c.name}::${c.type} AS ${c.name}` : `${alias}.${c.name}`));
  return `SELECT ${select.join(', ')} FROM unnest(${arrays.join(', ')}) AS ${alias}(${names.join(', ')})`;
}

/**
 * The parameters of {@link unnestSelect}: each column's values, in the rows' order, as the array's text. Written here
 * rather than by the driver, whose serialiser formats every element through a type switch, two regular expressions and
 * a local-time rendering of each Date: at 1,000 rows of 26 columns a batch that was 6 % of a busy process's time
 * (docs/scaling.md, "The arrays' text").
 *
 * A column whose every value is NULL is sent as NULL, not as an array of NULLs: `unnest` pads its shorter arrays with
 * NULLs, so the rows read the same, and the server parses nothing for it (most of a new message's 35 columns are NULL
 * in a batch: docs/scaling.md, "Columns of NULLs"). The first column, a key, always goes whole: it gives the relation
 * its rows.
 */
export function columnValues<T>(columns: readonly ArrayColumn<T>[], rows: readonly T[]): (string | null)[] {
  return columns.map((c, n) => {
    if (c.as === 'json') return jsonTexts(c, rows, n > 0);
    const elements = new Array<string>(rows.length);
    let given = n === 0;
    for (let i = 0; i < rows.length; i++) {
      const value = cell(c, rows[i]!);
      if (value !== null && value !== undefined) given = true;
      elements[i] = element(value);
    }
    return given ? `{${elements.join(',')}}` : null;
  });
}

/** A row's value in a column. */
const cell = <T>(c: ArrayColumn<T>, row: T): unknown => (c.value ? c.value(row) : row[c.name as keyof T]);

/** A JSON column's documents joined by {@link JSON_SEPARATOR}, none quoted; NULL when none is and `nullable`. */
function jsonTexts<T>(c: ArrayColumn<T>, rows: readonly T[], nullable: boolean): string | null {
  const texts = new Array<string>(rows.length);
  let given = !nullable;
  for (let i = 0; i < rows.length; i++) {
    const value = cell(c, rows[i]!);
    if (value === null || value === undefined) texts[i] = '';
    else if (typeof value !== 'string' || value === '' || value.includes(JSON_SEPARATOR)) {
      throw new TypeError(`column ${c.name} holds something other than JSON.stringify's text`);
    } else {
      texts[i] = value;
      given = true;
    }
  }
  return given ? texts.join(JSON_SEPARATOR) : null;
}

/** What an element may be written as without quotes: nothing the array's reader gives a meaning to. */
const BARE = /^[\w.:+-]+$/;

/**
 * One element of an array's text: NULL, bare, or quoted with its backslashes and double quotes escaped. A number's,
 * a boolean's and a time's text hold nothing to quote.
 */
function element(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') {
    // A bare NULL (in any case) would read as no value.
    return BARE.test(value) && !(value.length === 4 && value.toLowerCase() === 'null') ? value : quoted(value);
  }
  if (value instanceof Date) return isoMs(value);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  throw new TypeError(`a batch's column holds ${typeof value}: a nested value is sent as text`);
}

const quoted = (text: string): string => `"${text.replace(/[\\"]/g, '\\$&')}"`;

/**
 * An array's text as PostgreSQL reads it (`{"a","b"}`), for a column of arrays sent as text: each element quoted, its
 * backslashes and double quotes escaped (the driver's own serialiser is not public).
 */
export const arrayLiteral = (values: readonly (string | number)[]): string =>
  `{${values.map((v) => quoted(String(v))).join(',')}}`;
