import type { Db } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { isoUtc } from '../util/time.js';
import { compilePattern } from './templatePattern.js';
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

/** The text a template pattern is matched against: SMS and VK text, the text (or media name) of object content. */
export function matchableText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!isPlainObject(content)) return undefined;
  for (const field of ['text', 'imageName', 'documentName']) {
    if (typeof content[field] === 'string') return content[field] as string;
  }
  return undefined;
}

interface Compiled {
  readonly row: TemplateRow;
  readonly regex: RegExp;
}

const CACHE_MS = 5000;

/**
 * Approved templates per account, their patterns compiled once, kept for a few seconds (decisions through this
 * process's operator API apply at once). Answers which active template, if any, a message's text matches.
 */
export class TemplateMatcher {
  private readonly cache = new Map<number, { at: number; templates: Compiled[] }>();

  constructor(private readonly db: Db) {}

  invalidate(accountId?: number): void {
    if (accountId === undefined) this.cache.clear();
    else this.cache.delete(accountId);
  }

  async forAccount(accountId: number): Promise<(channel: Channel, senderName: string, content: unknown, now: Date) => number | undefined> {
    let entry = this.cache.get(accountId);
    if (!entry || Date.now() - entry.at > CACHE_MS) {
      const rows = await templateApprovedList(this.db, accountId);
      entry = { at: Date.now(), templates: rows.map((row) => ({ row, regex: compilePattern(row.pattern) })) };
      this.cache.set(accountId, entry);
    }
    const templates = entry.templates;
    return (channel, senderName, content, now) => {
      if (templates.length === 0) return undefined;
      const text = matchableText(content);
      if (text === undefined) return undefined;
      for (const { row, regex } of templates) {
        if (row.channel_type !== channel || row.sender_name !== senderName) continue;
        if (row.date_from > now || (row.date_to !== null && row.date_to < now)) continue;
        if (regex.test(text)) return row.id;
      }
      return undefined;
    };
  }
}
