const ORIGINAL = Symbol.for('herald.original');
type Kept<F> = F & { [ORIGINAL]?: F };

/**
 * `replacement(original)`, keeping `original` on it, for a module that replaces a library's function when it loads:
 * loading that module again (each test file does; the library is loaded once a process) replaces the library's own
 * function again instead of wrapping the replacement before it.
 */
export function replacing<F extends object>(current: F, replacement: (original: F) => F): F {
  const original = originalOf(current);
  const replaced: Kept<F> = replacement(original);
  replaced[ORIGINAL] = original;
  return replaced;
}

/** The library's own function behind `fn` (`fn` itself when Herald did not replace it). */
export function originalOf<F extends object>(fn: F): F {
  return (fn as Kept<F>)[ORIGINAL] ?? fn;
}
