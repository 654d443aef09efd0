import { Type } from 'typebox';
import { accountGetOr404 } from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { ChannelType, errorResponses, Id, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import type { AppContext } from '../context.js';
import { SenderName } from './senderNameSchemas.js';
import {
  approveSenderName,
  checkSenderNameFormat,
  isBotToken,
  SENDER_NAME_MAX_LENGTH,
  senderNameToApi,
} from './senderNames.js';
import {
  SENDER_NAME_STATUSES,
  senderNameDecide,
  senderNameGet,
  senderNameInsert,
  senderNameList,
  senderNameBotElsewhere,
  senderNameSetBotToken,
} from './senderNameSql.js';

/** Longer than any valid token (checked by isBotToken), short enough that a refused one costs nothing. */
const BOT_TOKEN_MAX_LENGTH = 200;
const BotTokenBody = Type.Object(
  {
    botToken: Type.String({
      maxLength: BOT_TOKEN_MAX_LENGTH,
      description: "the bot's token from @BotFather: `<bot id>:<30 to 50 letters, digits, _ or ->`",
      examples: ['123456789:AAE-example-secret-0123456789abcdef'],
    }),
  },
  { additionalProperties: false, examples: [{ botToken: '123456789:AAE-example-secret-0123456789abcdef' }] },
);
const SenderNameWithWebhook = Type.Object({
  ...SenderName.properties,
  webhook: Type.Optional(
    Type.String({
      description:
        "How the bot's webhook registration went (`registered at <url>`, or why not), when a telegram-bot " +
        'connector is configured',
    }),
  ),
});
const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601, e.g. 2026-01-01T08:00:00Z' });
const ApprovedNameBody = Type.Object(
  {
    channelType: ChannelType,
    name: Type.String(),
    startDate: Type.Optional(DateTime),
    comment: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  {
    additionalProperties: false,
    examples: [{ channelType: 'SMS', name: 'ZOOMAG', comment: 'Договор № 45-2026, гарантийное письмо получено' }],
  },
);
/** The name is checked by checkSenderNameFormat (at most 64 characters), not the schema: sized as that allows. */
const APPROVED_NAME_BODY_LIMIT = bodyLimitFor(
  Type.Object(
    { ...ApprovedNameBody.properties, name: Type.String({ maxLength: SENDER_NAME_MAX_LENGTH }) },
    { additionalProperties: false },
  ),
);

/** A bot's token as the Bot API judged it: refused (not a token, another bot's), or not checked (no answer). */
export type BotCheck = { readonly refused: string } | { readonly unreachable: string } | undefined;

/** What checks a bot's token and sets the bot up once it is stored (telegram/, through the Bot API). */
export interface BotSetup {
  /** Asks the Bot API whose token it is, before it is stored. */
  check(name: string, token: string): Promise<BotCheck>;
  /** Registers the webhook of a bot whose token was stored; returns how it went, for the operator. */
  attached(bot: { id: number; name: string; token: string }): Promise<string>;
}

/**
 * The operator's side of sender names: create approved, moderate (approve with a start date, reject with a comment),
 * attach a bot's token (checked and set up by `botSetup`, when a Telegram connector is configured).
 */
export const adminSenderNameRoutes =
  (botSetup: (ctx: AppContext) => BotSetup | undefined = () => undefined): Routes =>
  (app, ctx) => {
    const bots = botSetup(ctx);
    const onRequest = requireAdmin(ctx);
    const security = [{ adminToken: [] }];
    const tags = ['Operator: sender names'];

    app.post(
      '/admin/v1/accounts/:id/sender-names',
      {
        onRequest,
        bodyLimit: APPROVED_NAME_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Create a sender name already Approved (start date now unless given)',
          description:
            'A WHATSAPP name whose number another account already has approved -> 409 4091 (one owner per number).',
          security,
          params: IdParam,
          body: ApprovedNameBody,
          response: { 201: SenderName, ...errorResponses(404, 409, 422) },
        },
      },
      async (request, reply) => {
        const account = await accountGetOr404(ctx.db, request.params.id);
        const { channelType, startDate, comment } = request.body;
        const name = checkSenderNameFormat(channelType, request.body.name);
        const now = ctx.clock.now();
        const row = await approveSenderName(ctx.db, { accountId: account.id, channelType, name }, (tx) =>
          senderNameInsert(tx, {
            accountId: account.id,
            channelType,
            name,
            status: 'Approved',
            startDate: startDate ? new Date(startDate) : now,
            comment: comment ?? null,
            now,
          }),
        );
        if (!row) throw herald('conflict', { reason: `Sender name already exists: (${channelType}, ${name})` });
        return reply.status(201).send(senderNameToApi(row));
      },
    );

    app.get(
      '/admin/v1/sender-names',
      {
        onRequest,
        schema: {
          tags,
          summary: 'List sender names of all accounts; status=Pending is the moderation queue',
          security,
          querystring: Query({
            ...PAGE_PARAMETERS,
            status: Type.Optional(Type.Enum(SENDER_NAME_STATUSES)),
            accountId: Type.Optional(Id()),
            channelType: Type.Optional(ChannelType),
          }),
          response: { 200: paginated(SenderName) },
        },
      },
      async (request) => {
        const { status, accountId, channelType } = request.query;
        const page = request.query.page ?? 1;
        const perPage = request.query.per_page ?? 100;
        const { rows, total } = await senderNameList(
          ctx.db,
          { status, accountId, channelType },
          perPage,
          (page - 1) * perPage,
        );
        return { items: rows.map(senderNameToApi), page, per_page: perPage, total };
      },
    );

    app.post(
      '/admin/v1/sender-names/:id/approve',
      {
        onRequest,
        schema: {
          tags,
          summary: 'Approve a sender name from a start date (now unless given)',
          description:
            'A WHATSAPP name whose number another account already has approved -> 409 4091 (one owner per number).',
          security,
          params: IdParam,
          body: Type.Optional(
            Type.Object(
              { startDate: Type.Optional(DateTime) },
              { additionalProperties: false, examples: [{ startDate: '2026-12-01T00:00:00+03:00' }] },
            ),
          ),
          response: { 200: SenderName, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const now = ctx.clock.now();
        const startDate = request.body?.startDate ? new Date(request.body.startDate) : now;
        const found = await senderNameGet(ctx.db, request.params.id);
        if (!found) throw herald('notFound', { what: `Sender name ${request.params.id}` });
        const row = await approveSenderName(
          ctx.db,
          { accountId: found.account_id, channelType: found.channel_type, name: found.name },
          (tx) => senderNameDecide(tx, found.id, { status: 'Approved', startDate }, now),
        );
        if (!row) throw herald('notFound', { what: `Sender name ${request.params.id}` });
        return senderNameToApi(row);
      },
    );

    app.post(
      '/admin/v1/sender-names/:id/reject',
      {
        onRequest,
        schema: {
          tags,
          summary: 'Reject a sender name with a comment',
          security,
          params: IdParam,
          body: Type.Object(
            { comment: Type.String({ minLength: 1, maxLength: 1000 }) },
            {
              additionalProperties: false,
              examples: [{ comment: 'Имя не совпадает с названием организации или товарным знаком из договора' }],
            },
          ),
          response: { 200: SenderName, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const row = await senderNameDecide(
          ctx.db,
          request.params.id,
          { status: 'Rejected', comment: request.body.comment },
          ctx.clock.now(),
        );
        if (!row) throw herald('notFound', { what: `Sender name ${request.params.id}` });
        return senderNameToApi(row);
      },
    );

    app.patch(
      '/admin/v1/sender-names/:id',
      {
        onRequest,
        schema: {
          tags,
          summary: "Attach a bot's token to a TELEGRAM sender name",
          description:
            'A TELEGRAM sender name (a bot) sends only once it has its token (DESIGN 18); a new token replaces the ' +
            'old. With a telegram-bot connector, Telegram is asked whose token it is first (getMe: refused is 422, ' +
            'no answer 503), and the webhook is registered after (`webhook` says how it went). ' +
            'The token is never shown again: every answer masks it as the bot id and an ellipsis (`123456:…`). ' +
            'Another channel, or a token not of the form `<bot id>:<secret>`, is 422 4220.',
          security,
          params: IdParam,
          body: BotTokenBody,
          response: { 200: SenderNameWithWebhook, ...errorResponses(404, 422, 503) },
        },
      },
      async (request) => {
        const found = await senderNameGet(ctx.db, request.params.id);
        if (!found) throw herald('notFound', { what: `Sender name ${request.params.id}` });
        if (found.channel_type !== 'TELEGRAM') {
          throw herald('unprocessable', {
            reason: `Bot tokens are for TELEGRAM sender names; sender name ${found.id} is ${found.channel_type}`,
          });
        }
        const { botToken } = request.body;
        if (!isBotToken(botToken)) {
          throw herald('invalidSecretField', {
            field: 'botToken',
            reason: 'a bot token is <bot id>:<30 to 50 letters, digits, _ or ->',
          });
        }
        // A bot has one webhook: its updates (and so its subscribers' links) can belong to one account only.
        const other = await senderNameBotElsewhere(ctx.db, found.name, Number(found.account_id));
        if (other) {
          throw herald('unprocessable', {
            reason:
              `The bot @${found.name} is attached to account ${other.accountId} already ` + `(sender name ${other.id})`,
          });
        }
        const checked = await bots?.check(found.name, botToken);
        if (checked && 'refused' in checked)
          throw herald('invalidSecretField', { field: 'botToken', reason: `Telegram refused it: ${checked.refused}` });
        if (checked && 'unreachable' in checked)
          throw herald('notReady', { reason: `the Bot API did not answer (${checked.unreachable}); try again` });
        const row = await senderNameSetBotToken(ctx.db, found.id, botToken, ctx.clock.now());
        if (!row) throw herald('notFound', { what: `Sender name ${request.params.id}` });
        const webhook = await bots?.attached({ id: Number(row.id), name: row.name, token: botToken });
        return { ...senderNameToApi(row), ...(webhook ? { webhook } : {}) };
      },
    );
  };
