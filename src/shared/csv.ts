/*
 * CSV as the exports write it and the imports read it (RFC 4180): one escaper for every export, one parser for
 * every import.
 */

/**
 * Splits CSV text (RFC 4180: `,`-separated, `"`-quoted fields with `""` for a quote, CRLF or LF line ends) into
 * rows of fields, each with its line number (1-based, where it starts). Blank lines are skipped.
 */
export function parseCsv(text: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = (): void => {
    fields.push(field);
    if (fields.length > 1 || fields[0]!.trim() !== '') rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
  };
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (quoted) {
      if (char === '"' && body[i + 1] === '"') field += body[++i];
      else if (char === '"') quoted = false;
      else {
        if (char === '\n') line++;
        field += char;
      }
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && body[i + 1] === '\n') i++;
      endRow();
      rowLine = ++line;
    } else field += char;
  }
  if (field !== '' || fields.length > 0) endRow();
  return rows;
}

/** A field as CSV: quoted when it holds a separator, a quote or a line end; a formula's lead neutralised. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  // A cell starting with = + - @ is a formula to a spreadsheet: a comment must not run as one when opened.
  if (/^[=+\-@]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
