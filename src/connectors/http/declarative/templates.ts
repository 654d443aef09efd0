/**
 * Request templates of declarative HTTP connectors (DESIGN 19): a URL, headers and a JSON body written as the
 * provider documents them, with placeholders Herald fills per message.
 *
 * - `{name}` is a placeholder of {@link PLACEHOLDERS}; `{secret:NAME}` the connector's secret NAME (from its
 *   `secrets`, never logged or shown); `{{` and `}}` are literal braces.
 * - In a JSON body, a string that is one placeholder and nothing else takes the value's own type (`"{ttl}"` becomes
 *   the number 3600); placeholders within longer strings are written as text.
 * - In a URL, placeholders other than secrets are percent-encoded.
 *
 * A template is read once, when the configuration is: an unknown placeholder, a secret the connector lacks, or an
 * unbalanced brace is refused then, naming the key.
 */
export const PLACEHOLDERS = [
  'destination',
  'destinationPlus',
  'senderName',
  'text',
  'code',
  'ttl',
  'messageUuid',
  'statusUrl',
  'content',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
/** `content` is the message's content as stored (an object for VIBER, VOICECODE, WHATSAPP, TELEGRAM). */
export type PlaceholderValues = Readonly<Partial<Record<Placeholder, unknown>>>;

export class TemplateError extends Error {}

type Part = { readonly literal: string } | { readonly placeholder: Placeholder } | { readonly secret: string };

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

/** Reads a string template found at `where` (e.g. `connectors[2].request.url`), or throws TemplateError. */
export function compileString(
  source: string,
  where: string,
  secrets: Readonly<Record<string, string>>,
): StringTemplate {
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
      const name = source.slice(i + 1, end);
      if (literal) parts.push({ literal });
      literal = '';
      if (name.startsWith('secret:')) {
        const secret = name.slice('secret:'.length);
        if (!Object.hasOwn(secrets, secret))
          throw new TemplateError(`${where}: {secret:${secret}} names no key of the connector's secrets`);
        parts.push({ secret });
      } else if (KNOWN.has(name)) {
        parts.push({ placeholder: name as Placeholder });
      } else {
        throw new TemplateError(
          `${where}: unknown placeholder {${name}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}, ` +
            '{secret:NAME})',
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

/** Reads a JSON body template, or throws TemplateError naming the key of the problem. */
export function compileJson(value: unknown, where: string, secrets: Readonly<Record<string, string>>): JsonTemplate {
  if (typeof value === 'string') return { kind: 'string', template: compileString(value, where, secrets) };
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return { kind: 'value', value };
  if (Array.isArray(value))
    return { kind: 'array', items: value.map((item, i) => compileJson(item, `${where}[${i}]`, secrets)) };
  if (typeof value === 'object')
    return {
      kind: 'object',
      entries: Object.entries(value).map(
        ([key, item]) => [key, compileJson(item, `${where}.${key}`, secrets)] as const,
      ),
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
      const raw = values[part.placeholder];
      const value =
        raw === undefined || raw === null ? '' : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
      out += encode ? encodeURIComponent(value) : value;
    }
  }
  return out;
}

/** A JSON body template filled: a string that is one placeholder keeps its value's type. */
export function renderJson(
  template: JsonTemplate,
  values: PlaceholderValues,
  secrets: Readonly<Record<string, string>>,
): unknown {
  switch (template.kind) {
    case 'value':
      return template.value;
    case 'string': {
      const [only] = template.template.parts;
      if (template.template.parts.length === 1 && only && 'placeholder' in only) {
        return values[only.placeholder] ?? null;
      }
      return renderString(template.template, values, secrets);
    }
    case 'array':
      return template.items.map((item) => renderJson(item, values, secrets));
    case 'object':
      return Object.fromEntries(template.entries.map(([key, item]) => [key, renderJson(item, values, secrets)]));
  }
}
