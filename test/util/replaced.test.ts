import { describe, expect, it } from 'vitest';
import { originalOf, replacing } from '../../src/util/replaced.js';

describe('replacing a library function', () => {
  it('wraps the original, and a second replacement wraps the original again instead of the first', () => {
    const library = { greet: (name: string): string => `hello ${name}` };
    const loud = (greet: (name: string) => string) => (name: string) => greet(name).toUpperCase();
    library.greet = replacing(library.greet, loud);
    const first = library.greet;
    // The patching module loaded again (as each test file loads it).
    library.greet = replacing(library.greet, (greet) => (name: string) => `${greet(name)}!`);
    expect(library.greet('ann')).toBe('hello ann!');
    expect(originalOf(library.greet)).toBe(originalOf(first));
    expect(originalOf(library.greet)('ann')).toBe('hello ann');
  });

  it('gives a function never replaced as it is', () => {
    const fn = (): number => 1;
    expect(originalOf(fn)).toBe(fn);
  });
});
