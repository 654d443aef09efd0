/**
 * The one path syntax of declarative HTTP connectors (DESIGN 19): a subset of JSONPath (RFC 9535).
 *
 * - `$` is the document; `$.a.b` a member by name (letters, digits, `_` and `-`, not starting with a digit);
 * - `$['a b']` or `$["a b"]` a member by any name (`\'`, `\"` and `\\` escape);
 * - `$.list[0]` an element by index (0 and up), `$.list[-1]` the last;
 * - `$.items[*]` every element of an array (or every value of an object): a path with `[*]` finds many values.
 *
 * Nothing else (filters, slices, recursive descent): a path that uses them is refused when the connector is read,
 * with the place of the problem.
 */
export type Segment =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'all' };

export interface JsonPath {
  readonly source: string;
  readonly segments: readonly Segment[];
  /** The path has `[*]`: it finds any number of values. */
  readonly many: boolean;
}

export class JsonPathError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*/;

/** Reads a path, or throws JsonPathError saying what is wrong and where. */
export function compileJsonPath(source: string): JsonPath {
  if (typeof source !== 'string' || !source.startsWith('$'))
    throw new JsonPathError(`${JSON.stringify(source)}: a path starts with $`);
  const segments: Segment[] = [];
  let i = 1;
  const fail = (what: string): never => {
    throw new JsonPathError(`${JSON.stringify(source)}: ${what} at character ${i + 1}`);
  };
  while (i < source.length) {
    const c = source[i];
    if (c === '.') {
      const name = NAME.exec(source.slice(i + 1))?.[0];
      if (!name) fail('a member name (letters, digits, _ or -) expected after "."');
      segments.push({ kind: 'name', name: name! });
      i += 1 + name!.length;
    } else if (c === '[') {
      const rest = source.slice(i + 1);
      if (rest.startsWith('*]')) {
        segments.push({ kind: 'all' });
        i += 3;
      } else if (rest[0] === "'" || rest[0] === '"') {
        const quote = rest[0];
        let name = '';
        let j = 1;
        for (; j < rest.length && rest[j] !== quote; j++) {
          if (rest[j] === '\\') {
            const next = rest[j + 1];
            if (next !== quote && next !== '\\') fail('only \\\\ and the quote may be escaped');
            name += next;
            j++;
          } else name += rest[j];
        }
        if (rest[j] !== quote || rest[j + 1] !== ']') fail('an unterminated quoted name');
        segments.push({ kind: 'name', name });
        i += 1 + j + 2;
      } else {
        const index = /^(-?\d+)\]/.exec(rest);
        if (!index) fail('[n], [*] or a quoted name expected');
        const n = Number(index![1]);
        if (!Number.isSafeInteger(n)) fail('an index too large');
        segments.push({ kind: 'index', index: n });
        i += 1 + index![0].length;
      }
    } else {
      fail(`"${c}" is not part of the path syntax (.name, ['name'], [n], [*])`);
    }
  }
  return { source, segments, many: segments.some((s) => s.kind === 'all') };
}

/** Every value the path finds in `document`, in document order (none when a step finds nothing). */
export function jsonPathAll(path: JsonPath, document: unknown): unknown[] {
  let current: unknown[] = [document];
  for (const segment of path.segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (segment.kind === 'name') {
        if (isObject(value) && Object.hasOwn(value, segment.name)) next.push(value[segment.name]);
      } else if (segment.kind === 'index') {
        if (Array.isArray(value)) {
          const at = segment.index < 0 ? value.length + segment.index : segment.index;
          if (at >= 0 && at < value.length) next.push(value[at]);
        }
      } else if (Array.isArray(value)) next.push(...value);
      else if (isObject(value)) next.push(...Object.values(value));
    }
    current = next;
  }
  return current;
}

/** The first value the path finds, or undefined. */
export function jsonPathFirst(path: JsonPath, document: unknown): unknown {
  return jsonPathAll(path, document)[0];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
