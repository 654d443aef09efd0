/** Quotes a CSV field when it needs it (RFC 4180), and defuses spreadsheet formulas. */
function field(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as CSV text, CRLF line ends. */
export function toCsv(rows: readonly (readonly unknown[])[]): string {
  return rows.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** Makes the browser download the rows as a CSV file, built here without a request. */
export function downloadCsv(filename: string, rows: readonly (readonly unknown[])[]): void {
  downloadText(filename, `\uFEFF${toCsv(rows)}`, 'text/csv');
}

/** Makes the browser download a text (UTF-8) as a file. */
export function downloadText(filename: string, text: string, type: string): void {
  const blob = new Blob([text], { type: `${type};charset=utf-8` });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
