/**
 * Body limits by route. Every route that can take a body reads at most what its largest valid body needs, so that a
 * client cannot make Herald read and parse megabytes a route will refuse anyway (a 15 MB body took 2.8 s to parse):
 * a bigger body is answered 413 4130 from its Content-Length, before it is read. The largest valid body is computed
 * from the route's body schema (its maxLength, maxItems, enums and closed objects), each string escaped at worst and
 * each value given room for the whitespace of a pretty-printing client. A route whose schema sets no such ceiling
 * (a string without maxLength, an open object) must state its limit itself; Herald refuses to start otherwise.
 */

import { CONTAINER_VALUES } from './jsonShape.js';

/** What a route that takes no body reads at most: room for `{}` and what a client sends out of habit. */
export const NO_BODY_LIMIT = 1024;

/** Whitespace a pretty-printing client puts around a value: a newline and 14 spaces of indentation (depth 7). */
const WHITESPACE_PER_VALUE = 16;
/** A number as JSON text: -1.7976931348623157e+308 is 24 characters; 32 leaves room for other spellings. */
const NUMBER_BYTES = 32;
/** `\uXXXX`: what a character of the Basic Multilingual Plane takes escaped. */
const ESCAPED_BMP = 6;
/** `\uXXXX\uXXXX`: what a character beyond it takes (a surrogate pair); maxLength counts it as one. */
const ESCAPED_ASTRAL = 12;
/** Formats with a longest spelling: a uuid (36), an RFC 3339 date-time with nanoseconds and offset (35). */
const FORMAT_LENGTHS: Readonly<Record<string, number>> = { uuid: 36, 'date-time': 35 };
/** `^[...]{m,n}$`, `^\d{n}$`: the patterns of fixed-width fields (codes, prefixes, logins) and their longest run. */
const SIMPLE_PATTERN = /^\^(?:\[[^\]]*\]|\\d|\\w|\.)\{(\d+)(?:,(\d+))?\}\$$/;

type Schema = Readonly<Record<string, unknown>>;

/** A string as JSON text with every character escaped: the longest spelling of it. */
function escapedBytes(text: string): number {
  let bytes = 2;
  for (const char of text) bytes += char.codePointAt(0)! > 0xffff ? ESCAPED_ASTRAL : ESCAPED_BMP;
  return bytes;
}

/** The longest string a string schema allows, as JSON text; undefined when it sets no ceiling. */
function largestString(schema: Schema): number | undefined {
  const bounds: number[] = [];
  if (typeof schema.maxLength === 'number') bounds.push(2 + schema.maxLength * ESCAPED_ASTRAL);
  // The characters of these patterns and formats are ASCII: 6 bytes each at worst.
  const run = typeof schema.pattern === 'string' ? SIMPLE_PATTERN.exec(schema.pattern) : null;
  if (run) bounds.push(2 + Number(run[2] ?? run[1]) * ESCAPED_BMP);
  const format = typeof schema.format === 'string' ? FORMAT_LENGTHS[schema.format] : undefined;
  if (format !== undefined) bounds.push(2 + format * ESCAPED_BMP);
  return bounds.length > 0 ? Math.min(...bounds) : undefined;
}

const largestOf = (values: readonly (number | undefined)[]): number | undefined =>
  values.some((v) => v === undefined) ? undefined : Math.max(0, ...(values as number[]));

/**
 * A closed object of pattern-named properties (a TypeBox Record with maxProperties): maxProperties of the largest
 * name and value; undefined unless every pattern bounds its names.
 */
function largestRecord(schema: Schema): number | undefined {
  if (typeof schema.maxProperties !== 'number') return undefined;
  const entries = Object.entries(schema.patternProperties as Record<string, Schema>).map(([pattern, value]) => {
    const key = largestString({ pattern });
    const size = largestJson(value);
    return key === undefined || size === undefined ? undefined : key + 1 + size + 1;
  });
  const entry = largestOf(entries);
  return entry === undefined ? undefined : 2 + schema.maxProperties * entry;
}

function largestOfType(type: string, schema: Schema): number | undefined {
  switch (type) {
    case 'string':
      return largestString(schema);
    case 'number':
    case 'integer':
      return NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'null':
      return 4;
    case 'array': {
      if (typeof schema.maxItems !== 'number' || typeof schema.items !== 'object' || schema.items === null) return;
      const item = largestJson(schema.items);
      return item === undefined ? undefined : 2 + schema.maxItems * (item + 1);
    }
    case 'object': {
      // Only a closed object has a largest value: any other may carry more properties.
      if (schema.additionalProperties !== false) return undefined;
      if (schema.patternProperties !== undefined) return largestRecord(schema);
      let sum = 2;
      for (const [key, value] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        const size = largestJson(value);
        if (size === undefined) return undefined;
        sum += escapedBytes(key) + 1 + size + 1;
      }
      return sum;
    }
    default:
      return undefined;
  }
}

/**
 * The longest JSON text of a value valid against `schema` (a JSON schema, as TypeBox makes them): every string
 * escaped at worst, room for whitespace around every value. Undefined when the schema sets no ceiling.
 */
export function largestJson(jsonSchema: object): number | undefined {
  const schema = jsonSchema as Schema;
  // A choice of schemas: the largest of theirs (whitespace included).
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    return largestOf(((schema.anyOf ?? schema.oneOf) as Schema[]).map(largestJson));
  }
  if (Array.isArray(schema.allOf)) {
    // A value valid against all of them is valid against each: the smallest ceiling holds.
    const bounded = (schema.allOf as Schema[]).map(largestJson).filter((s): s is number => s !== undefined);
    return bounded.length > 0 ? Math.min(...bounded) : undefined;
  }
  let size: number | undefined;
  if (schema.const !== undefined) {
    size = typeof schema.const === 'string' ? escapedBytes(schema.const) : JSON.stringify(schema.const).length;
  } else if (Array.isArray(schema.enum)) {
    size = Math.max(
      ...schema.enum.map((v: unknown) => (typeof v === 'string' ? escapedBytes(v) : JSON.stringify(v).length)),
    );
  } else if (typeof schema.type === 'string') {
    size = largestOfType(schema.type, schema);
  } else if (Array.isArray(schema.type)) {
    size = largestOf((schema.type as string[]).map((type) => largestOfType(type, schema)));
  }
  return size === undefined ? undefined : size + WHITESPACE_PER_VALUE;
}

/**
 * The body limit of a route whose largest valid body is that of `schema`, in whole KiB, at least
 * {@link NO_BODY_LIMIT}. Throws, naming `route`, when the schema sets no ceiling.
 */
export function bodyLimitFor(schema: object, route = 'a route'): number {
  const largest = largestJson(schema);
  if (largest === undefined) {
    throw new Error(
      `${route}: its body schema sets no ceiling (a string without maxLength, an array without maxItems, an open ` +
        'object); give the route a bodyLimit computed from what its handler accepts',
    );
  }
  return Math.max(NO_BODY_LIMIT, Math.ceil(largest / 1024) * 1024);
}

/**
 * What a route whose body schema sets no ceiling on its values (an open object, an array without maxItems) takes:
 * far more than any settings body holds, and few enough that JSON.parse of the densest such body costs under a
 * millisecond.
 */
export const DEFAULT_JSON_VALUES = 10_000;

/**
 * For a route that states its byte limit and whose schema counts no values: a value per 32 bytes of the limit (a
 * uuid in a list takes 39, a conversion of 1000 in 886 KiB 59), which JSON.parse takes in about 4 ms at its densest
 * for the 2.3 MB of `POST /api/v1/message/stop`.
 */
export const BYTES_PER_VALUE = 32;

/**
 * The most values the JSON text of a value valid against `schema` holds, as jsonShape.ts counts them (a comma or a
 * colon announces one, an array or object counts as {@link CONTAINER_VALUES}): undefined when the schema sets no
 * ceiling.
 */
export function largestValues(jsonSchema: object): number | undefined {
  const schema = jsonSchema as Schema;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    return largestOf(((schema.anyOf ?? schema.oneOf) as Schema[]).map(largestValues));
  }
  if (Array.isArray(schema.allOf)) {
    const bounded = (schema.allOf as Schema[]).map(largestValues).filter((s): s is number => s !== undefined);
    return bounded.length > 0 ? Math.min(...bounded) : undefined;
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
  if (schema.const !== undefined) return valuesOf(schema.const);
  if (Array.isArray(schema.enum)) return Math.max(0, ...schema.enum.map(valuesOf));
  return largestOf(types.map((type) => (typeof type === 'string' ? valuesOfType(type, schema) : undefined)));
}

/** The values of a constant's JSON text. */
function valuesOf(constant: unknown): number {
  const text = JSON.stringify(constant);
  return [...text].reduce(
    (sum, c) => sum + (c === '[' || c === '{' ? CONTAINER_VALUES : c === ',' || c === ':' ? 1 : 0),
    0,
  );
}

function valuesOfType(type: string, schema: Schema): number | undefined {
  switch (type) {
    case 'array': {
      if (typeof schema.maxItems !== 'number' || typeof schema.items !== 'object' || schema.items === null) return;
      const item = largestValues(schema.items);
      // The array, and a comma and the item's own for each item.
      return item === undefined ? undefined : CONTAINER_VALUES + schema.maxItems * (1 + item);
    }
    case 'object': {
      if (schema.additionalProperties !== false || schema.patternProperties !== undefined) return undefined;
      let sum = CONTAINER_VALUES;
      for (const value of Object.values((schema.properties ?? {}) as Record<string, Schema>)) {
        const size = largestValues(value);
        if (size === undefined) return undefined;
        // A colon and a comma for each property, and the value's own.
        sum += 2 + size;
      }
      return sum;
    }
    default:
      return 0;
  }
}
