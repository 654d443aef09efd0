import type { Text } from './operationTypes.js';

/** Fills `{name}` segments of a path template, each value URI-encoded. */
export function fillPath(template: string, params: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`No value for {${name}} in ${template}`);
    return encodeURIComponent(String(value));
  });
}

/** `?name=value&...` of the values given (undefined and null left out), or '' when none is. */
export function queryString(query: Readonly<Record<string, Text>> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
