import { Type } from 'typebox';
import { herald, HeraldError, showValue } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { requireAdmin } from '../http/auth.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { ChannelType, errorResponses, Id, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { validateWhatsappContent, VOICECODE_SENDER_NAME, WHATSAPP_LIMITS } from '../sending/index.js';
import { SENDER_NAME_MAX_LENGTH, senderNameExists } from '../senderNames/index.js';
import type { Channel } from '../shared/channels.js';
import { charCount } from '../shared/text.js';
import { adjacentPlaceholders, PATTERN_MAX_LENGTH } from './templatePattern.js';
import { contentStrings, effectiveStatus, TEMPLATE_TYPES, templateToApi } from './templates.js';
import {
  TEMPLATE_STATUSES,
  templateDecide,
  templateDelete,
  type TemplateFields,
  templateGet,
  templateInsert,
  templateList,
  type TemplateRow,
  templateUpdate,
} from './templateSql.js';

const DateTime = Type.String({ format: 'date-time' });
const Template = Type.Object({
  id: Type.Integer(),
  channelType: Type.String(),
  templateType: Type.String(),
  pattern: Type.String(),
  senderName: Type.String(),
  dateFrom: Type.String(),
  dateTo: Type.Union([Type.String(), Type.Null()]),
  status: Type.Enum(['INTERNAL_REVIEW', 'APPROVED', 'REJECTED', 'CLOSED']),
  managerComment: Type.Union([Type.String(), Type.Null()]),
  content: Type.Unknown(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
const TemplateBody = Type.Object(
  {
    channelType: ChannelType,
    templateType: Type.Enum(TEMPLATE_TYPES),
    pattern: Type.String({
      minLength: 1,
      maxLength: PATTERN_MAX_LENGTH,
      description: 'Text with %w (a word), %d (digits), %s (any text)',
    }),
    senderName: Type.String({ minLength: 1, maxLength: SENDER_NAME_MAX_LENGTH }),
    dateFrom: Type.Optional(DateTime),
    dateTo: Type.Optional(Type.Union([DateTime, Type.Null()])),
    content: Type.Optional(Type.Unknown({ description: 'WHATSAPP: the content object of the template message' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        channelType: 'SMS',
        templateType: 'SERVICE',
        pattern: 'Заказ %d готов к выдаче в пункте %s',
        senderName: 'Lavka',
      },
    ],
  },
);
/** PUT changes the fields given and keeps the others. */
const TemplatePatch = Type.Partial(TemplateBody, {
  additionalProperties: false,
  examples: [{ pattern: 'Заказ %d ждёт вас в пункте выдачи %s до %s' }],
});
/**
 * The largest valid template: its content is a WhatsApp content object (validateWhatsappContent: text at most 1000
 * characters, header and footer text 60, a button's text 20 and its other field 1000) each of whose strings is a
 * pattern of at most 2000 characters (links and file names have no other bound): a document with a document header
 * and 3 buttons at most, some 160 KB escaped at worst.
 */
const TEMPLATE_BODY_LIMIT = (() => {
  const closed = { additionalProperties: false } as const;
  const Text = (maxLength: number) => Type.String({ maxLength });
  const Pattern = Text(PATTERN_MAX_LENGTH);
  const limits = WHATSAPP_LIMITS;
  const decorations = {
    header: Type.Union([
      Type.Object({ text: Text(limits.headerText) }, closed),
      Type.Object({ documentUrl: Pattern, documentName: Pattern }, closed),
      Type.Object({ imageUrl: Pattern }, closed),
    ]),
    footer: Type.Object({ text: Text(limits.footerText) }, closed),
    buttons: Type.Array(
      Type.Union(
        ['payload', 'url', 'phone'].map((field) =>
          Type.Object({ text: Text(limits.buttonText), [field]: Text(limits.buttonField) }, closed),
        ),
      ),
      { maxItems: limits.buttons },
    ),
  };
  const content = Type.Union([
    Type.Object({ contentType: Type.Literal('text'), text: Text(limits.text), ...decorations }, closed),
    Type.Object({ contentType: Type.Literal('image'), imageUrl: Pattern, imageName: Pattern, ...decorations }, closed),
    Type.Object(
      { contentType: Type.Literal('document'), documentUrl: Pattern, documentName: Pattern, ...decorations },
      closed,
    ),
  ]);
  return bodyLimitFor(Type.Object({ ...TemplateBody.properties, content }, closed));
})();
type TemplateInput = {
  channelType: Channel;
  templateType: string;
  pattern: string;
  senderName: string;
  dateFrom?: string | undefined;
  dateTo?: string | null | undefined;
  content?: unknown;
};

/**
 * Templates (TOKEN_2): created in INTERNAL_REVIEW, APPROVED or REJECTED by the operator, CLOSED
 * after dateTo. What may change: everything while in review; everything of a rejected template (it goes back to
 * review); only dateTo of an approved one; nothing of a closed one.
 */
export const templateRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['Templates'];

  const checkSenderName = async (accountId: number, channel: Channel, senderName: string): Promise<void> => {
    if (channel === 'VOICECODE') {
      // VOICECODE speaks as `voicecode`, which needs no registration.
      if (senderName !== VOICECODE_SENDER_NAME) {
        const value = `${showValue(senderName)} (VOICECODE templates use ${VOICECODE_SENDER_NAME})`;
        throw herald('invalidField', { field: 'senderName', value });
      }
    } else if (channel !== 'VK' && !(await senderNameExists(ctx.db, accountId, channel, senderName))) {
      const value = `${showValue(senderName)} (not a sender name of the account for ${channel})`;
      throw herald('invalidField', { field: 'senderName', value });
    }
  };
  /**
   * Checks a template's fields. `given` names the fields a PUT sent: what it keeps was checked when it was stored,
   * so a kept sender name or content is not checked again (a since deleted name must not block a new dateTo).
   */
  const fieldsOf = async (
    accountId: number,
    input: TemplateInput,
    now: Date,
    given?: Partial<TemplateInput>,
  ): Promise<TemplateFields> => {
    const sent = (...fields: (keyof TemplateInput)[]): boolean =>
      given === undefined || fields.some((f) => given[f] !== undefined);
    const dateFrom = input.dateFrom ? new Date(input.dateFrom) : now;
    const dateTo = input.dateTo ? new Date(input.dateTo) : null;
    if (dateTo && dateTo <= dateFrom)
      throw herald('invalidField', { field: 'dateTo', value: `${showValue(input.dateTo)} (must be after dateFrom)` });
    if (sent('channelType', 'senderName')) await checkSenderName(accountId, input.channelType, input.senderName);
    const touching = sent('pattern') ? adjacentPlaceholders(input.pattern) : undefined;
    if (touching)
      throw herald('invalidField', {
        field: 'pattern',
        value: `${showValue(input.pattern)} (placeholders must be separated by text: ${touching})`,
      });
    if (input.content !== undefined && input.content !== null && sent('channelType', 'content')) {
      if (input.channelType !== 'WHATSAPP') throw herald('fieldNotAccepted', { field: 'content' });
      try {
        validateWhatsappContent(input.content);
      } catch (error) {
        if (error instanceof HeraldError) throw herald('invalidField', { field: 'content', value: error.message });
        throw error;
      }
      const strings = contentStrings(input.content);
      if (strings.some((string) => charCount(string) > PATTERN_MAX_LENGTH)) {
        throw herald('invalidField', {
          field: 'content',
          value: `every string must be at most ${PATTERN_MAX_LENGTH} characters`,
        });
      }
      const inContent = strings.map(adjacentPlaceholders).find((found) => found !== undefined);
      if (inContent)
        throw herald('invalidField', {
          field: 'content',
          value: `placeholders must be separated by text: ${inContent}`,
        });
    }
    return {
      channelType: input.channelType,
      templateType: input.templateType,
      pattern: input.pattern,
      senderName: input.senderName,
      dateFrom,
      dateTo,
      content: input.content ?? null,
    };
  };
  const mine = async (accountId: number, id: number): Promise<TemplateRow> => {
    const row = await templateGet(ctx.db, id);
    if (!row || row.account_id !== accountId) throw herald('notFound', { what: `Template ${id}` });
    return row;
  };

  app.post(
    '/api/v1/templates',
    {
      onRequest,
      bodyLimit: TEMPLATE_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Create a template; it is reviewed by the operator',
        security,
        body: TemplateBody,
        response: { 201: Template, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const now = ctx.clock.now();
      const limit = ctx.config.templatesPerAccount;
      const row = await templateInsert(ctx.db, accountId, await fieldsOf(accountId, request.body, now), now, limit);
      if (!row) throw herald('perAccountLimit', { what: 'templates', limit });
      return reply.status(201).send(templateToApi(row, now));
    },
  );

  app.get(
    '/api/v1/templates',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's templates",
        security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          status: Type.Optional(Type.Enum(TEMPLATE_STATUSES)),
          channelType: Type.Optional(ChannelType),
        }),
        response: { 200: paginated(Template) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const { rows, total } = await templateList(
        ctx.db,
        {
          accountId: principalOf(request).accountId,
          status: request.query.status,
          channelType: request.query.channelType,
        },
        perPage,
        (page - 1) * perPage,
      );
      const now = ctx.clock.now();
      return { items: rows.map((r) => templateToApi(r, now)), page, per_page: perPage, total };
    },
  );

  app.get(
    '/api/v1/templates/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'One template',
        security,
        params: IdParam,
        response: { 200: Template, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => templateToApi(await mine(principalOf(request).accountId, request.params.id), ctx.clock.now()),
  );

  app.put(
    '/api/v1/templates/:id',
    {
      onRequest,
      bodyLimit: TEMPLATE_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Change the fields given of a template, keeping the others (see the rules per status)',
        security,
        params: IdParam,
        body: TemplatePatch,
        response: { 200: Template, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const now = ctx.clock.now();
      const row = await mine(accountId, request.params.id);
      const status = effectiveStatus(row, now);
      const patch = request.body;
      const merged: TemplateInput = {
        channelType: patch.channelType ?? row.channel_type,
        templateType: patch.templateType ?? row.template_type,
        pattern: patch.pattern ?? row.pattern,
        senderName: patch.senderName ?? row.sender_name,
        dateFrom: patch.dateFrom ?? row.date_from.toISOString(),
        // null is a value here: it makes the template open-ended.
        dateTo: patch.dateTo !== undefined ? patch.dateTo : (row.date_to?.toISOString() ?? null),
        content: patch.content !== undefined ? patch.content : row.content,
      };
      const fields = await fieldsOf(accountId, merged, now, patch);
      if (status === 'CLOSED') throw herald('conflict', { reason: 'Template is closed: it can no longer change' });
      if (status === 'APPROVED') {
        const same =
          fields.channelType === row.channel_type &&
          fields.templateType === row.template_type &&
          fields.pattern === row.pattern &&
          fields.senderName === row.sender_name &&
          fields.dateFrom.getTime() === row.date_from.getTime() &&
          JSON.stringify(fields.content ?? null) === JSON.stringify(row.content ?? null);
        if (!same)
          throw herald('conflict', {
            reason: 'Template is approved: only dateTo may change; create a new template for other changes',
          });
      }
      const updated = await templateUpdate(
        ctx.db,
        row.id,
        fields,
        status === 'APPROVED' ? 'APPROVED' : 'INTERNAL_REVIEW',
        now,
      );
      ctx.templates.invalidate(accountId);
      return templateToApi(updated, now);
    },
  );

  app.delete(
    '/api/v1/templates/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Delete a template',
        security,
        params: IdParam,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      if (!(await templateDelete(ctx.db, accountId, request.params.id, ctx.clock.now())))
        throw herald('notFound', { what: `Template ${request.params.id}` });
      ctx.templates.invalidate(accountId);
      return reply.status(204).send(null);
    },
  );
};

/** The operator's moderation of templates. */
export const adminTemplateRoutes: Routes = (app, ctx) => {
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: templates'];

  app.get(
    '/admin/v1/templates',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Templates of all accounts; status=INTERNAL_REVIEW is the moderation queue',
        security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          status: Type.Optional(Type.Enum(TEMPLATE_STATUSES)),
          accountId: Type.Optional(Id()),
        }),
        response: { 200: paginated(Type.Intersect([Template, Type.Object({ accountId: Type.Integer() })])) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const { rows, total } = await templateList(
        ctx.db,
        { accountId: request.query.accountId, status: request.query.status },
        perPage,
        (page - 1) * perPage,
      );
      const now = ctx.clock.now();
      return {
        items: rows.map((r) => ({ ...templateToApi(r, now), accountId: r.account_id })),
        page,
        per_page: perPage,
        total,
      };
    },
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/admin/v1/templates/:id/${decision}`,
      {
        onRequest,
        schema: {
          tags,
          summary: decision === 'approve' ? 'Approve a template' : 'Reject a template with a comment',
          security,
          params: IdParam,
          body:
            decision === 'approve'
              ? Type.Optional(Type.Object({}, { additionalProperties: false, examples: [{}] }))
              : Type.Object(
                  { comment: Type.String({ minLength: 1, maxLength: 1000 }) },
                  {
                    additionalProperties: false,
                    examples: [{ comment: 'Текст рекламный: создайте шаблон с типом MARKETING' }],
                  },
                ),
          response: { 200: Template, ...errorResponses(401, 404, 422) },
        },
      },
      async (request) => {
        const now = ctx.clock.now();
        const comment = (request.body as { comment?: string } | undefined)?.comment;
        const row = await templateDecide(
          ctx.db,
          request.params.id,
          decision === 'approve' ? { status: 'APPROVED' } : { status: 'REJECTED', comment: comment! },
          now,
        );
        if (!row) throw herald('notFound', { what: `Template ${request.params.id}` });
        ctx.templates.invalidate(row.account_id);
        return templateToApi(row, now);
      },
    );
  }
};
