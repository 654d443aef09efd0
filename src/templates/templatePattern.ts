/**
 * Template patterns (DESIGN section 6): literal text with placeholders `%w` (a word: characters up to white
 * space), `%d` (digits) and `%s` (any text, at least one character). A pattern is compiled once into an anchored
 * regular expression.
 */
const PLACEHOLDER = /%[wds]/g;
const PIECES: Readonly<Record<string, string>> = { '%w': '\\S+', '%d': '\\d+', '%s': '[\\s\\S]+?' };

export function compilePattern(pattern: string): RegExp {
  let source = '';
  let last = 0;
  for (const match of pattern.matchAll(PLACEHOLDER)) {
    source += escape(pattern.slice(last, match.index)) + PIECES[match[0]]!;
    last = match.index + match[0].length;
  }
  source += escape(pattern.slice(last));
  return new RegExp(`^${source}$`, 'u');
}

// `-` is literal outside a character class, and the `u` flag refuses `\-` there: escaping it made every pattern
// with a dash a SyntaxError, and every send of its account a 500.
function escape(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
