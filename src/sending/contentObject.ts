import { herald } from '../errors/catalogue.js';
import { isPlainObject } from '../shared/text.js';

/**
 * Reads a content object's `contentType` against the shapes a channel knows, and refuses fields the shape does not
 * have. Returns the object and its type; throws `Invalid content: ...` naming the problem.
 */
export function readContentObject<T extends string>(
  content: unknown,
  fieldsByType: Readonly<Record<T, readonly string[]>>,
): { object: Record<string, unknown>; type: T } {
  const types = Object.keys(fieldsByType);
  const list = `${types.slice(0, -1).join(', ')} or ${types.at(-1)}`;
  const detail = (reason: string) => herald('invalidContentDetail', { reason });
  if (!isPlainObject(content)) throw detail(`an object with contentType ${list} is expected`);
  const type = content.contentType;
  if (type === undefined || type === null) throw detail('missing contentType');
  if (typeof type !== 'string' || !types.includes(type)) {
    throw detail(`contentType must be ${list}, not ${JSON.stringify(type)}`);
  }
  const allowed = fieldsByType[type as T];
  for (const key of Object.keys(content)) {
    if (key !== 'contentType' && !allowed.includes(key)) throw detail(`unknown field ${key} for contentType ${type}`);
  }
  return { object: content, type: type as T };
}
