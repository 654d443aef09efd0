import { LongInteger } from '../jsonText.js';

/**
 * Request templates of declarative HTTP connectors (DESIGN 19): a URL, headers and a body written as the provider
 * documents them, with placeholders Herald fills per message.
 *
 * - `{name}` is a placeholder of {@link PLACEHOLDERS} (`carrierId` and `carrierIds` in status polls only);
 *   `{secret:NAME}` the connector's secret NAME (from its `secrets`, never logged or shown); `{var:NAME}` the value
 *   NAME of its `vars` (settings that are not secret, such as a template id); `{{` and `}}` are literal braces.
 * - Filters follow a bar and apply in order: `{text|xml}` escapes for XML, `{code|number}` makes a number,
 *   `{x|string}` a string, `{text|digits}` keeps the digits, `{ttl|max:36000}` and `{ttl|min:60}` clamp a number,
 *   `{x|upper}` and `{x|lower}` change the case, `{contentType|map:NAME}` looks the value up in the connector's
 *   `valueMaps.NAME` (a value it does not list is sent as it is).
 * - In a JSON body, a string that is one placeholder and nothing else takes the value's own type (`"{ttl}"` becomes
 *   the number 3600), and a key whose placeholder has no value (the caption of a Viber text) is left out.
 * - In a URL, placeholders other than secrets are percent-encoded.
 *
 * A template is read once, when the configuration is: an unknown placeholder or filter, a secret, var or value map
 * the connector lacks, or an unbalanced brace is refused then, naming the key.
 */
export const PLACEHOLDERS = [
  'destination',
  'destinationPlus',
  'senderName',
  'text',
  'code',
  'ttl',
  'messageUuid',
  'externalMessageId',
  'statusUrl',
  'content',
  'contentType',
  'caption',
  'action',
  'imageUrl',
  'carrierId',
  'carrierIds',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
/** The placeholders of a status poll's request, and only of it. */
export const POLL_PLACEHOLDERS: readonly Placeholder[] = ['carrierId', 'carrierIds'];
/** `content` is the message's content as stored (an object for VIBER, VOICECODE, WHATSAPP, TELEGRAM). */
export type PlaceholderValues = Readonly<Partial<Record<Placeholder, unknown>>>;

export class TemplateError extends Error {}

/** What a connector's templates may name besides the placeholders. */
export interface TemplateScope {
  readonly secrets: Readonly<Record<string, string>>;
  readonly vars?: Readonly<Record<string, string>>;
  readonly valueMaps?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** A status poll's request: `{carrierId}` and `{carrierIds}` are allowed. */
  readonly poll?: boolean;
}

type Filter =
  | { readonly kind: 'xml' | 'number' | 'string' | 'digits' | 'upper' | 'lower' }
  | { readonly kind: 'max' | 'min'; readonly limit: number }
  | { readonly kind: 'map'; readonly map: Readonly<Record<string, unknown>> };

type Part =
  | { readonly literal: string }
  | { readonly placeholder: Placeholder; readonly filters: readonly Filter[] }
  | { readonly constant: string; readonly filters: readonly Filter[] }
  | { readonly secret: string };

/** A string with placeholders, read. */
export interface StringTemplate {
  readonly parts: readonly Part[];
}

/** A JSON value with placeholders in its strings, read. */
export type JsonTemplate =
  | { readonly kind: 'string'; readonly template: StringTemplate }
  | { readonly kind: 'value'; readonly value: null | boolean | number }
  | { readonly kind: 'array'; readonly items: readonly JsonTemplate[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, JsonTemplate])[] };

const KNOWN: ReadonlySet<string> = new Set(PLACEHOLDERS);
const PLAIN_FILTERS = ['xml', 'number', 'string', 'digits', 'upper', 'lower'] as const;

/** Reads a string template found at `where` (e.g. `connectors[2].request.url`), or throws TemplateError. */
export function compileString(source: string, where: string, scope: TemplateScope): StringTemplate {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '{' && source[i + 1] === '{') {
      literal += '{';
      i++;
    } else if (c === '}' && source[i + 1] === '}') {
      literal += '}';
      i++;
    } else if (c === '{') {
      const end = source.indexOf('}', i);
      if (end < 0) throw new TemplateError(`${where}: "{" without "}" (write {{ for a brace)`);
      const [name = '', ...filterNames] = source.slice(i + 1, end).split('|');
      if (literal) parts.push({ literal });
      literal = '';
      const filters = filterNames.map((f) => compileFilter(f, where, scope));
      if (name.startsWith('secret:')) {
        const secret = name.slice('secret:'.length);
        if (!Object.hasOwn(scope.secrets, secret))
          throw new TemplateError(`${where}: {secret:${secret}} names no key of the connector's secrets`);
        // A secret is written as it is: a filter would be a way to show it changed (and it needs none).
        if (filters.length > 0) throw new TemplateError(`${where}: {secret:${secret}} takes no filter`);
        parts.push({ secret });
      } else if (name.startsWith('var:')) {
        const key = name.slice('var:'.length);
        if (!scope.vars || !Object.hasOwn(scope.vars, key))
          throw new TemplateError(`${where}: {var:${key}} names no key of the connector's vars`);
        parts.push({ constant: scope.vars[key]!, filters });
      } else if (KNOWN.has(name) && (scope.poll || !POLL_PLACEHOLDERS.includes(name as Placeholder))) {
        parts.push({ placeholder: name as Placeholder, filters });
      } else {
        const known = PLACEHOLDERS.filter((p) => scope.poll || !POLL_PLACEHOLDERS.includes(p));
        throw new TemplateError(
          `${where}: unknown placeholder {${name}} (known: ${known.map((p) => `{${p}}`).join(', ')}, ` +
            '{secret:NAME}, {var:NAME})',
        );
      }
      i = end;
    } else if (c === '}') {
      throw new TemplateError(`${where}: "}" without "{" (write }} for a brace)`);
    } else literal += c;
  }
  if (literal) parts.push({ literal });
  return { parts };
}

function compileFilter(source: string, where: string, scope: TemplateScope): Filter {
  const [kind = '', arg] = source.split(':', 2) as [string, string | undefined];
  if ((PLAIN_FILTERS as readonly string[]).includes(kind) && arg === undefined)
    return { kind: kind as (typeof PLAIN_FILTERS)[number] };
  if ((kind === 'max' || kind === 'min') && arg !== undefined && /^-?\d+(\.\d+)?$/.test(arg))
    return { kind, limit: Number(arg) };
  if (kind === 'map' && arg !== undefined) {
    const map = scope.valueMaps?.[arg];
    if (!map) throw new TemplateError(`${where}: |map:${arg} names no key of the connector's valueMaps`);
    return { kind, map };
  }
  throw new TemplateError(
    `${where}: unknown filter |${source} (known: |${PLAIN_FILTERS.join(', |')}, |max:N, |min:N, |map:NAME)`,
  );
}

/** Reads a JSON body template, or throws TemplateError naming the key of the problem. */
export function compileJson(value: unknown, where: string, scope: TemplateScope): JsonTemplate {
  if (typeof value === 'string') return { kind: 'string', template: compileString(value, where, scope) };
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return { kind: 'value', value };
  if (Array.isArray(value))
    return { kind: 'array', items: value.map((item, i) => compileJson(item, `${where}[${i}]`, scope)) };
  if (typeof value === 'object')
    return {
      kind: 'object',
      entries: Object.entries(value).map(([key, item]) => [key, compileJson(item, `${where}.${key}`, scope)] as const),
    };
  throw new TemplateError(`${where}: not a JSON value`);
}

/** The placeholders a template uses (a connector checks that its channel has them all). */
export function placeholdersOf(template: StringTemplate | JsonTemplate): Set<Placeholder> {
  const found = new Set<Placeholder>();
  const walk = (t: StringTemplate | JsonTemplate): void => {
    if ('parts' in t) {
      for (const part of t.parts) if ('placeholder' in part) found.add(part.placeholder);
    } else if (t.kind === 'string') walk(t.template);
    else if (t.kind === 'array') t.items.forEach(walk);
    else if (t.kind === 'object') for (const [, item] of t.entries) walk(item);
  };
  walk(template);
  return found;
}

const XML: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function applyFilter(value: unknown, filter: Filter): unknown {
  if (value === undefined || value === null) return value;
  // A list (the carrier ids of a poll) is filtered item by item: "{carrierIds|number}" is an array of numbers.
  if (Array.isArray(value)) return value.map((item) => applyFilter(item, filter));
  switch (filter.kind) {
    case 'xml':
      return asText(value).replace(/[&<>"']/g, (c) => XML[c]!);
    case 'number': {
      // A long id stays exact: written as a bare number with all its digits.
      if (typeof value === 'string' && /^-?\d{16,}$/.test(value)) return new LongInteger(value);
      const n = typeof value === 'number' ? value : Number(asText(value));
      return Number.isFinite(n) ? n : undefined;
    }
    case 'string':
      return asText(value);
    case 'digits':
      return asText(value).replace(/\D/g, '');
    case 'upper':
      return asText(value).toUpperCase();
    case 'lower':
      return asText(value).toLowerCase();
    case 'max':
    case 'min': {
      const n = typeof value === 'number' ? value : Number(asText(value));
      if (!Number.isFinite(n)) return value;
      return filter.kind === 'max' ? Math.min(n, filter.limit) : Math.max(n, filter.limit);
    }
    case 'map': {
      const key = asText(value);
      return Object.hasOwn(filter.map, key) ? filter.map[key] : value;
    }
  }
}

function asText(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The value of a placeholder or var part, its filters applied. */
function partValue(part: Exclude<Part, { literal: string } | { secret: string }>, values: PlaceholderValues): unknown {
  let value = 'constant' in part ? part.constant : values[part.placeholder];
  for (const filter of part.filters) value = applyFilter(value, filter);
  return value;
}

/** A string template filled; `encode` percent-encodes the placeholders' values (URLs), never the secrets'. */
export function renderString(
  template: StringTemplate,
  values: PlaceholderValues,
  secrets: Readonly<Record<string, string>>,
  encode = false,
): string {
  let out = '';
  for (const part of template.parts) {
    if ('literal' in part) out += part.literal;
    else if ('secret' in part) out += secrets[part.secret]!;
    else {
      const raw = partValue(part, values);
      // A list (the carrier ids of a poll) is written comma-separated within a string.
      const value =
        raw === undefined || raw === null
          ? ''
          : Array.isArray(raw)
            ? raw.map(asText).join(',')
            : typeof raw === 'object'
              ? JSON.stringify(raw)
              : String(raw);
      out += encode ? encodeURIComponent(value) : value;
    }
  }
  return out;
}

/** Nothing to send: the key of an object whose value is this is left out. */
const ABSENT = Symbol('absent');

/** A JSON body template filled: a string that is one placeholder keeps its value's type. */
export function renderJson(
  template: JsonTemplate,
  values: PlaceholderValues,
  secrets: Readonly<Record<string, string>>,
): unknown {
  const value = render(template, values, secrets);
  return value === ABSENT ? null : value;
}

function render(template: JsonTemplate, values: PlaceholderValues, secrets: Readonly<Record<string, string>>): unknown {
  switch (template.kind) {
    case 'value':
      return template.value;
    case 'string': {
      const [only] = template.template.parts;
      if (template.template.parts.length === 1 && only && !('literal' in only) && !('secret' in only)) {
        const value = partValue(only, values);
        return value === undefined || value === null ? ABSENT : value;
      }
      return renderString(template.template, values, secrets);
    }
    case 'array':
      return template.items.map((item) => render(item, values, secrets)).map((v) => (v === ABSENT ? null : v));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of template.entries) {
        const value = render(item, values, secrets);
        if (value !== ABSENT) out[key] = value;
      }
      return out;
    }
  }
}
