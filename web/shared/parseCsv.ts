/*
 * Reading CSV files people make (RFC 4180, as spreadsheets save them), the counterpart of csv.ts's toCsv. Kept apart
 * from csv.ts, which downloads through the DOM, so that tests run it in Node.
 */

/** A CSV file's rows, each the list of its cells. */
export interface CsvTable {
  /** The separator the header row uses: `,`, or `;` as spreadsheets in many locales save CSV. */
  readonly separator: ',' | ';';
  readonly rows: string[][];
}

/**
 * Parses CSV text: quoted fields (`"a, b"`, `""` for a quote) may hold separators and line breaks; line ends may
 * be CRLF, LF or CR; a leading byte order mark is dropped; blank lines are skipped. The separator is `;` when the
 * first line has a `;` and no `,` outside quotes, else `,`.
 */
export function parseCsv(text: string): CsvTable {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const separator = separatorOf(input);
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endRow = () => {
    row.push(cell);
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
    cell = '';
  };
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (quoted) {
      if (c !== '"') cell += c;
      else if (input[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      row.push(cell);
      cell = '';
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && input[i + 1] === '\n') i++;
      endRow();
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) endRow();
  return { separator, rows };
}

function separatorOf(text: string): ',' | ';' {
  let quoted = false;
  let semicolon = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === ',') return ',';
    else if (c === ';') semicolon = true;
    else if (c === '\n' || c === '\r') break;
  }
  return semicolon ? ';' : ',';
}
