/** Number of characters (Unicode code points) of a string: how the spec's "1 to N characters" limits count. */
export function charCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** True for a string that is empty or only white space: the spec's "Blank content". */
export function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** A text must be UTF-8 "without byte order mark": a leading U+FEFF is refused. */
export function startsWithBom(text: string): boolean {
  return text.charCodeAt(0) === 0xfeff;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
