import { Type } from 'typebox';
import { principalOf, requireToken } from '../accounts/index.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { validateContent } from '../sending/index.js';
import { checkSettings, DEFAULT_KEYWORDS, OPT_OUT_LIMITS } from './keywords.js';
import { INBOUND_CHANNELS, replyContent } from './optOut.js';
import { optOutSettingGet, optOutSettingPut } from './optOutSettingSql.js';

const Settings = Type.Object({
  keywords: Type.Array(Type.String(), {
    description: 'Whole inbound texts (trimmed, any case) that list their sender on the stop list',
  }),
  reply: Type.Union([Type.String(), Type.Null()], {
    description: 'A confirmation sent, free, on the channel and sender name written to; null: none',
  }),
});

const SettingsBody = Type.Object(
  {
    keywords: Type.Array(Type.String({ maxLength: OPT_OUT_LIMITS.keywordLength * 2 }), {
      minItems: 1,
      maxItems: OPT_OUT_LIMITS.keywords,
    }),
    reply: Type.Optional(Type.Union([Type.String({ maxLength: OPT_OUT_LIMITS.replyLength * 2 }), Type.Null()])),
  },
  {
    additionalProperties: false,
    examples: [
      { keywords: ['СТОП', 'STOP', 'Отписаться'], reply: 'Вы отписаны от рассылок Lavka. Вернуться: lavka.example' },
    ],
  },
);

/**
 * The largest body valid settings need: 20 keywords of 80 UTF-16 units and a reply of 320, each unit escaped as
 * \uXXXX at worst (6 bytes), and the punctuation.
 */
const BODY_LIMIT =
  (OPT_OUT_LIMITS.keywords * OPT_OUT_LIMITS.keywordLength * 2 + OPT_OUT_LIMITS.replyLength * 2) * 6 + 1024;

/** Settings / Opt-out (DESIGN 20), with TOKEN_2: the account's keywords and confirmation reply. */
export const optOutRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];

  app.get(
    '/api/v1/opt-out',
    {
      onRequest,
      schema: {
        tags: ['Opt-out'],
        summary: "The account's opt-out keywords and confirmation reply",
        security,
        response: { 200: Settings, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const row = await optOutSettingGet(ctx.db, principalOf(request).accountId);
      return { keywords: row?.keywords ?? [...DEFAULT_KEYWORDS], reply: row?.reply ?? null };
    },
  );

  app.put(
    '/api/v1/opt-out',
    {
      onRequest,
      schema: {
        tags: ['Opt-out'],
        summary: "Replace the account's opt-out keywords and confirmation reply",
        description:
          `1 to ${OPT_OUT_LIMITS.keywords} keywords of at most ${OPT_OUT_LIMITS.keywordLength} characters (trimmed; ` +
          `repeats, in any case, kept once); a reply of at most ${OPT_OUT_LIMITS.replyLength} characters, a valid ` +
          'text of SMS, WHATSAPP and TELEGRAM, or null for none.',
        security,
        body: SettingsBody,
        response: { 200: Settings, ...errorResponses(401, 403, 413, 422) },
      },
      bodyLimit: BODY_LIMIT,
    },
    async (request) => {
      const settings = checkSettings(request.body);
      if (settings.reply !== null) checkReply(settings.reply);
      await optOutSettingPut(ctx.db, principalOf(request).accountId, settings, ctx.clock.now());
      return settings;
    },
  );
};

function checkReply(reply: string): void {
  try {
    // Any inbound channel may need it.
    for (const channel of INBOUND_CHANNELS) validateContent(channel, replyContent(channel, reply));
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    throw herald('invalidField', { field: 'reply', value: error.message });
  }
}
