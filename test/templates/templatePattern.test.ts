import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adjacentPlaceholders, compilePattern, isWhiteSpace } from '../../src/templates/templatePattern.js';
import { runCount } from '../helpers/runCount.js';

/**
 * Runs of each property: 2,000 in `npm test` (0.6 s for both on a busy machine), 20,000 in the nightly run (`npm run
 * test:nightly`: 2.3-3.2 s). The seeds are fixed, so the first 2,000 samples of each are the same in both.
 */
const RUNS = runCount('HERALD_TEST_PROPERTY_RUNS', 2000);

/** The regular expression patterns compiled to before the linear matcher: the reference for small inputs. */
function referenceRegex(pattern: string): RegExp {
  const pieces: Record<string, string> = { '%w': '\\S+', '%d': '\\d+', '%s': '[\\s\\S]+?' };
  const escape = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  let source = '';
  let last = 0;
  for (const match of pattern.matchAll(/%[wds]/g)) {
    source += escape(pattern.slice(last, match.index)) + pieces[match[0]]!;
    last = match.index + match[0].length;
  }
  return new RegExp(`^${source}${escape(pattern.slice(last))}$`, 'u');
}

// Few characters, so that random texts often match or nearly match: digits, letters, white space, the pattern's own
// `%`, a character outside the BMP, a lone surrogate and a regular-expression character.
const CHARS = ['1', '7', 'a', 'b', ' ', '\u00a0', '\n', '%', 'w', 'd', 's', '😀', '\ud83d', '.', '-'];
const text = (maxLength: number) => fc.array(fc.constantFrom(...CHARS), { maxLength }).map((chars) => chars.join(''));
const pattern = fc
  .array(fc.oneof(fc.constantFrom('%w', '%d', '%s'), fc.constantFrom(...CHARS)), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''));

describe('template patterns, matched in linear time', () => {
  it('match exactly what the regular expression they replace matched (random patterns and texts)', () => {
    fc.assert(
      fc.property(pattern, text(12), (p, t) => {
        expect(compilePattern(p).test(t)).toBe(referenceRegex(p).test(t));
      }),
      { numRuns: RUNS, seed: 12 },
    );
  });

  it('match texts built from the pattern as the regular expression does (near matches)', () => {
    // Texts made by filling each placeholder: these mostly match, and a mutation makes them nearly match.
    const filled = pattern.chain((p) =>
      fc
        .tuple(fc.array(text(3), { minLength: 8, maxLength: 8 }), fc.nat(20), fc.constantFrom(...CHARS))
        .map(([fills, at, char]) => {
          let i = 0;
          const t = p.replace(/%[wds]/g, () => fills[i++]!);
          return [p, t, t.slice(0, at) + char + t.slice(at + 1)] as const;
        }),
    );
    fc.assert(
      fc.property(filled, ([p, t, mutated]) => {
        expect(compilePattern(p).test(t)).toBe(referenceRegex(p).test(t));
        expect(compilePattern(p).test(mutated)).toBe(referenceRegex(p).test(mutated));
      }),
      { numRuns: RUNS, seed: 21 },
    );
  });

  it('know white space as \\s does, for every code point of the BMP', () => {
    for (let c = 0; c <= 0xffff; c++)
      expect(isWhiteSpace(c), `U+${c.toString(16)}`).toBe(/\s/u.test(String.fromCharCode(c)));
  });

  it('take time linear in the text where the regular expression backtracked', () => {
    const dear = compilePattern('Dear %s, order %s %s %s!');
    const started = performance.now();
    for (const t of [
      `Dear ${'a, order '.repeat(700)}`,
      `Dear x, order ${' '.repeat(6400)}!?`,
      `Dear ${'x '.repeat(100_000)}`,
    ]) {
      expect(dear.test(t)).toBe(false);
    }
    expect(dear.test(`Dear Ann, order 12 ${'is '.repeat(2000)}ready!`)).toBe(true);
    // A long pattern too: 2000 elements, every one alive at every character.
    const long = compilePattern(`%s${'a'.repeat(1998)}`);
    expect(long.test(`b${'a'.repeat(40_000)}`)).toBe(true);
    expect(long.test(`b${'a'.repeat(40_000)}b`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('find placeholders with nothing between them', () => {
    expect(adjacentPlaceholders('Dear %s%s')).toBe('%s%s');
    expect(adjacentPlaceholders('Code %d%w.')).toBe('%d%w');
    expect(adjacentPlaceholders('Dear %s %s, 100%% %d')).toBeUndefined();
  });
});
