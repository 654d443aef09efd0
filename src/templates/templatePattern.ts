/**
 * Template patterns: literal text with placeholders `%w` (a word: characters up to white
 * space), `%d` (ASCII digits) and `%s` (any text), each standing for one character or more, matched against a
 * whole text, character by character as Unicode code points.
 *
 * A pattern is a row of elements (a literal character, or a placeholder: one or more characters of its class), and
 * matching runs the row's automaton over the text: the set of elements that can have matched the last character
 * read, kept as a bit set, one pass, no going back. A text costs O(text x pattern / 32) whatever it holds. The
 * regular expression this replaces (`%s` as `[\s\S]+?`, `%d` and `%w` overlapping) backtracked: an approved
 * `Dear %s, order %s %s %s!` took 9.5 s over a 6.4k-character text. RE2 (the npm `re2` package) would also be
 * linear, but it is a native addon built on every install; the grammar is three classes, small enough to check by
 * hand and by a property test against the regular expression (test/templates/templatePattern.test.ts).
 */
const PLACEHOLDER = /%[wds]/g;

/**
 * The longest pattern, in characters, and so the longest string of a template's content (each is a pattern):
 * matching costs the text's length times the pattern's / 32, at most 63 steps a character.
 */
export const PATTERN_MAX_LENGTH = 2000;

/**
 * JavaScript's `\s` (white space and line terminators), which `%w` stops at: a hand-kept list, checked against
 * `/\s/u` for every code point by the tests.
 */
const WHITE_SPACE: ReadonlySet<number> = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
  0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);

export function isWhiteSpace(codePoint: number): boolean {
  return WHITE_SPACE.has(codePoint);
}

/** A compiled pattern: `test(text)` says whether the whole text matches. */
export class TemplatePattern {
  /** Elements in the pattern; bit i of a state stands for element i. */
  private readonly size: number;
  private readonly words: number;
  /** Per literal code point, the elements that are that character: ASCII in an array, the rest in a map. */
  private readonly ascii: (Uint32Array | undefined)[] = new Array(128);
  private readonly literals = new Map<number, Uint32Array>();
  /** The literal text before the first placeholder and after the last: a text that lacks them is refused at once. */
  private readonly head: string;
  private readonly tail: string;
  private readonly word: Uint32Array;
  private readonly digit: Uint32Array;
  private readonly any: Uint32Array;
  /** Placeholders: an element that may take another character of its class after its first. */
  private readonly repeat: Uint32Array;

  constructor(readonly source: string) {
    const elements: (number | '%w' | '%d' | '%s')[] = [];
    let last = 0;
    for (const match of source.matchAll(PLACEHOLDER)) {
      for (const char of source.slice(last, match.index)) elements.push(char.codePointAt(0)!);
      elements.push(match[0] as '%w' | '%d' | '%s');
      last = match.index + match[0].length;
    }
    for (const char of source.slice(last)) elements.push(char.codePointAt(0)!);
    const placeholders = [...source.matchAll(PLACEHOLDER)];
    this.head = placeholders.length === 0 ? source : source.slice(0, placeholders[0]!.index);
    this.tail = placeholders.length === 0 ? source : source.slice(placeholders.at(-1)!.index + 2);

    this.size = elements.length;
    this.words = Math.ceil(this.size / 32);
    const mask = (): Uint32Array => new Uint32Array(this.words);
    this.word = mask();
    this.digit = mask();
    this.any = mask();
    this.repeat = mask();
    elements.forEach((element, i) => {
      const bit = 1 << (i & 31);
      const at = i >>> 5;
      if (typeof element === 'number') {
        let literal = this.literalOf(element);
        if (!literal) {
          literal = mask();
          if (element < 128) this.ascii[element] = literal;
          else this.literals.set(element, literal);
        }
        literal[at]! |= bit;
        return;
      }
      const placeholder = element === '%w' ? this.word : element === '%d' ? this.digit : this.any;
      placeholder[at]! |= bit;
      this.repeat[at]! |= bit;
    });
  }

  private literalOf(codePoint: number): Uint32Array | undefined {
    return codePoint < 128 ? this.ascii[codePoint] : this.literals.get(codePoint);
  }

  /** Whether the whole of `text` matches the pattern; one pass over the text. */
  test(text: string): boolean {
    if (this.size === 0) return text === '';
    // As UTF-16 these are necessary, not sufficient (a pattern's lone surrogate must not match half a pair).
    if (!text.startsWith(this.head) || !text.endsWith(this.tail)) return false;
    const words = this.words;
    let state = new Uint32Array(words);
    let next = new Uint32Array(words);
    let first = true;
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
          i++;
        }
      }
      const literal = this.literalOf(c);
      const isWord = (c > 0x20 && c < 0x7f) || !WHITE_SPACE.has(c);
      const isDigit = c >= 0x30 && c <= 0x39;
      let alive = 0;
      // Element k can take c after element k - 1 (or, for element 0, at the start) or, a placeholder, after itself.
      let carry = first ? 1 : 0;
      for (let k = 0; k < words; k++) {
        const old = state[k]!;
        let takes = this.any[k]!;
        if (literal) takes |= literal[k]!;
        if (isWord) takes |= this.word[k]!;
        if (isDigit) takes |= this.digit[k]!;
        const now = ((old << 1) | carry | (old & this.repeat[k]!)) & takes;
        carry = old >>> 31;
        next[k] = now;
        alive |= now;
      }
      if (alive === 0) return false;
      [state, next] = [next, state];
      first = false;
    }
    const lastElement = this.size - 1;
    return (state[lastElement >>> 5]! & (1 << (lastElement & 31))) !== 0;
  }
}

export function compilePattern(pattern: string): TemplatePattern {
  return new TemplatePattern(pattern);
}

/**
 * The first two placeholders with nothing between them (`%s%s`, `%d%w`), or undefined. They are refused in new
 * patterns: which characters go to which is ambiguous, and no real template needs them.
 */
export function adjacentPlaceholders(pattern: string): string | undefined {
  return /%[wds]%[wds]/.exec(pattern)?.[0];
}
