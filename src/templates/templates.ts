import type { Db, Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { isoUtc } from '../util/time.js';
import { compilePattern, TemplatePattern } from './templatePattern.js';
import { templateApprovedList, type TemplateRow } from './templateSql.js';

export const TEMPLATE_TYPES = ['SERVICE', 'AUTHENTICATION', 'MARKETING'] as const;
export type TemplateStatus = 'INTERNAL_REVIEW' | 'APPROVED' | 'REJECTED' | 'CLOSED';

/** A template's status as clients see it: an approved template whose dateTo has passed is CLOSED. */
export function effectiveStatus(row: TemplateRow, now: Date): TemplateStatus {
  if (row.status === 'APPROVED' && row.date_to !== null && row.date_to < now) return 'CLOSED';
  return row.status;
}

export function templateToApi(row: TemplateRow, now: Date) {
  return {
    id: row.id,
    channelType: row.channel_type,
    templateType: row.template_type,
    pattern: row.pattern,
    senderName: row.sender_name,
    dateFrom: isoUtc(row.date_from)!,
    dateTo: isoUtc(row.date_to),
    status: effectiveStatus(row, now),
    managerComment: row.manager_comment,
    content: row.content ?? null,
    createdAt: isoUtc(row.created_at)!,
    updatedAt: isoUtc(row.updated_at)!,
  };
}

/**
 * The body text a template's `pattern` is matched against: a string content itself; of an object content its `text`
 * (WHATSAPP, VIBER and VOICECODE text, VIBER button), else its media name (`imageName`, `documentName`).
 */
export function matchableText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!isPlainObject(content)) return undefined;
  for (const field of ['text', 'imageName', 'documentName']) {
    if (typeof content[field] === 'string') return content[field] as string;
  }
  return undefined;
}

/** Every string of a template's `content`: each is read as a pattern. */
export function contentStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(contentStrings);
  return isPlainObject(value) ? Object.values(value).flatMap(contentStrings) : [];
}

/** A template's `content` read as patterns: the same tree, each string compiled with the pattern placeholders. */
type ContentPattern =
  TemplatePattern | readonly ContentPattern[] | { readonly [key: string]: ContentPattern } | number | boolean;

function compileContent(value: unknown): ContentPattern | undefined {
  if (typeof value === 'string') return compilePattern(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((item) => compileContent(item) ?? false);
  if (!isPlainObject(value)) return undefined;
  const tree: Record<string, ContentPattern> = {};
  for (const [key, item] of Object.entries(value)) {
    const compiled = compileContent(item);
    // null is an absent field, as in messages.
    if (compiled !== undefined) tree[key] = compiled;
  }
  return tree;
}

/**
 * True when `value` has the shape of `pattern` (the same fields, null counting as absent, and arrays of the same
 * length) and each of its strings matches the pattern's string at the same place.
 */
function contentMatches(pattern: ContentPattern, value: unknown): boolean {
  if (pattern instanceof TemplatePattern) return typeof value === 'string' && pattern.test(value);
  if (typeof pattern !== 'object') return value === pattern;
  if (Array.isArray(pattern)) {
    if (!Array.isArray(value) || value.length !== pattern.length) return false;
    return pattern.every((item: ContentPattern, i) => contentMatches(item, value[i]));
  }
  if (!isPlainObject(value)) return false;
  const fields = pattern as Record<string, ContentPattern>;
  const given = Object.keys(value).filter((key) => value[key] !== undefined && value[key] !== null);
  if (given.length !== Object.keys(fields).length) return false;
  return given.every((key) => key in fields && contentMatches(fields[key]!, value[key]));
}

/** Content with nothing but a text: a string, or an object of `contentType: "text"` and `text` alone. */
function isPlainText(content: unknown): boolean {
  if (typeof content === 'string') return true;
  if (!isPlainObject(content) || content.contentType !== 'text') return false;
  return Object.keys(content).every((key) => key === 'contentType' || key === 'text' || content[key] === null);
}

interface Compiled {
  readonly row: TemplateRow;
  readonly pattern: TemplatePattern;
  /** The template's content as patterns; undefined for a template without content (plain text only). */
  readonly content: ContentPattern | undefined;
}

/**
 * Whether a message's content matches a template (docs/entities.md, Templates): the pattern matches its body text
 * and, for a template with `content`, the message has the same shape with every string matching the template's
 * string at the same place; a template without `content` matches only plain text (no header, footer, buttons or
 * media).
 */
function templateMatches(template: Compiled, content: unknown): boolean {
  const text = matchableText(content);
  if (text === undefined || !template.pattern.test(text)) return false;
  return template.content === undefined ? isPlainText(content) : contentMatches(template.content, content);
}

const CACHE_MS = 5000;

/** Answers which active approved template of the account, if any, a message matches (its id). */
export type TemplateMatch = (channel: Channel, senderName: string, content: unknown, now: Date) => number | undefined;

/**
 * Approved templates per account, their patterns compiled once, kept for a few seconds (decisions through this
 * process's operator API apply at once). Answers which active template, if any, a message's content matches.
 */
export class TemplateMatcher {
  private readonly cache = new Map<number, { at: number; templates: Compiled[] }>();

  constructor(private readonly db: Db) {}

  invalidate(accountId?: number): void {
    if (accountId === undefined) this.cache.clear();
    else this.cache.delete(accountId);
  }

  /** `within`: the caller's transaction, read through itself (see Tariffs.refresh). */
  async forAccount(accountId: number, within?: Queryable): Promise<TemplateMatch> {
    let entry = this.cache.get(accountId);
    if (!entry || Date.now() - entry.at > CACHE_MS) {
      const rows = await templateApprovedList(within ?? this.db, accountId);
      const templates = rows.map((row) => ({
        row,
        pattern: compilePattern(row.pattern),
        content: compileContent(row.content),
      }));
      entry = { at: Date.now(), templates };
      this.cache.set(accountId, entry);
    }
    const templates = entry.templates;
    return (channel, senderName, content, now) => {
      for (const template of templates) {
        const { row } = template;
        if (row.channel_type !== channel || row.sender_name !== senderName) continue;
        if (row.date_from > now || (row.date_to !== null && row.date_to < now)) continue;
        if (templateMatches(template, content)) return row.id;
      }
      return undefined;
    };
  }
}
