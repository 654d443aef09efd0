import type { Db, Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';

export const TEMPLATE_STATUSES = ['INTERNAL_REVIEW', 'APPROVED', 'REJECTED'] as const;
export type StoredTemplateStatus = (typeof TEMPLATE_STATUSES)[number];

export interface TemplateRow {
  id: number;
  account_id: number;
  channel_type: Channel;
  template_type: string;
  pattern: string;
  sender_name: string;
  date_from: Date;
  date_to: Date | null;
  status: StoredTemplateStatus;
  manager_comment: string | null;
  content: unknown;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, account_id, channel_type, template_type, pattern, sender_name, date_from, date_to, status,
  manager_comment, content, created_at, updated_at`;

export interface TemplateFields {
  channelType: Channel;
  templateType: string;
  pattern: string;
  senderName: string;
  dateFrom: Date;
  dateTo: Date | null;
  content: unknown;
}

/** The advisory-lock class of an account's template count (the two-key form has a key space of its own). */
const TEMPLATE_COUNT_LOCK = 7311;

/**
 * Inserts a template in review, unless the account already has `limit` templates that are not deleted (0: no
 * limit): undefined then. The count and the insert run under a lock per account, so that concurrent creations cannot
 * pass the limit together.
 */
export async function templateInsert(
  db: Db,
  accountId: number,
  f: TemplateFields,
  now: Date,
  limit: number,
): Promise<TemplateRow | undefined> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1, ($2::bigint % 2147483647)::int)', [
      TEMPLATE_COUNT_LOCK,
      accountId,
    ]);
    const [row] = await tx.query<TemplateRow>(
      `INSERT INTO templates (account_id, channel_type, template_type, pattern, sender_name, date_from, date_to,
         status, content, created_at, updated_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, 'INTERNAL_REVIEW', $8, $9, $9
       WHERE $10 = 0 OR (SELECT count(*) FROM templates WHERE account_id = $1 AND deleted_at IS NULL) < $10
       RETURNING ${COLUMNS}`,
      [
        accountId,
        f.channelType,
        f.templateType,
        f.pattern,
        f.senderName,
        f.dateFrom,
        f.dateTo,
        f.content === undefined ? null : JSON.stringify(f.content),
        now,
        limit,
      ],
    );
    return row;
  });
}

/** The demo account's approved WHATSAPP template that matches any text (`%s`). */
export async function templateInsertDemo(
  tx: Queryable,
  accountId: number,
  senderName: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO templates (account_id, channel_type, template_type, pattern, sender_name, date_from, status,
       manager_comment, created_at, updated_at)
     VALUES ($1, 'WHATSAPP', 'SERVICE', '%s', $2, $3, 'APPROVED', 'demo', $3, $3)`,
    [accountId, senderName, now],
  );
}

export async function templateGet(db: Queryable, id: number): Promise<TemplateRow | undefined> {
  const [row] = await db.query<TemplateRow>(`SELECT ${COLUMNS} FROM templates WHERE id = $1 AND deleted_at IS NULL`, [
    id,
  ]);
  return row;
}

export async function templateList(
  db: Queryable,
  filter: {
    accountId?: number | undefined;
    status?: StoredTemplateStatus | undefined;
    channelType?: Channel | undefined;
  },
  limit: number,
  offset: number,
): Promise<{ rows: TemplateRow[]; total: number }> {
  const where = `deleted_at IS NULL AND ($1::bigint IS NULL OR account_id = $1) AND ($2::text IS NULL OR status = $2)
    AND ($3::text IS NULL OR channel_type = $3)`;
  const params = [filter.accountId ?? null, filter.status ?? null, filter.channelType ?? null];
  const rows = await db.query<TemplateRow>(
    `SELECT ${COLUMNS} FROM templates WHERE ${where} ORDER BY id LIMIT $4 OFFSET $5`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM templates WHERE ${where}`, params);
  return { rows, total: count!.n };
}

/** Replaces a template's fields and sets its status (an edit of a rejected template goes back to review). */
export async function templateUpdate(
  db: Queryable,
  id: number,
  f: TemplateFields,
  status: StoredTemplateStatus,
  now: Date,
): Promise<TemplateRow> {
  const [row] = await db.query<TemplateRow>(
    `UPDATE templates SET channel_type = $2, template_type = $3, pattern = $4, sender_name = $5, date_from = $6,
       date_to = $7, content = $8, status = $9,
       manager_comment = CASE WHEN $9 = status THEN manager_comment ELSE NULL END, updated_at = $10
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      f.channelType,
      f.templateType,
      f.pattern,
      f.senderName,
      f.dateFrom,
      f.dateTo,
      f.content === undefined || f.content === null ? null : JSON.stringify(f.content),
      status,
      now,
    ],
  );
  return row!;
}

export async function templateDecide(
  db: Queryable,
  id: number,
  decision: { status: 'APPROVED' } | { status: 'REJECTED'; comment: string },
  now: Date,
): Promise<TemplateRow | undefined> {
  const [row] = await db.query<TemplateRow>(
    `UPDATE templates SET status = $2, manager_comment = $3, updated_at = $4 WHERE id = $1 AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [id, decision.status, decision.status === 'REJECTED' ? decision.comment : null, now],
  );
  return row;
}

export async function templateDelete(db: Queryable, accountId: number, id: number, now: Date): Promise<boolean> {
  return (
    (
      await db.query(
        'UPDATE templates SET deleted_at = $3 WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id',
        [accountId, id, now],
      )
    ).length > 0
  );
}

/** The approved templates of an account (whatever their dates: the matcher checks them). */
export async function templateApprovedList(db: Queryable, accountId: number): Promise<TemplateRow[]> {
  return db.query<TemplateRow>(
    `SELECT ${COLUMNS} FROM templates WHERE account_id = $1 AND status = 'APPROVED' AND deleted_at IS NULL ORDER BY id`,
    [accountId],
  );
}
