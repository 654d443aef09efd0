import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { errorResponses, IdempotencyHeaders } from '../http/schemas.js';
import type { HeraldApp, Routes } from '../http/server.js';
import { idempotencyKeyOf, idempotentReplay, runIdempotent } from '../idempotency/index.js';
import { pumpingProofs } from '../fraud/index.js';
import { messageOutboundFlashcallIds } from '../messages/index.js';
import { isPlainObject } from '../shared/text.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { conversionUpsert } from './conversionSql.js';

export const CONVERSION_RESULTS = ['NUMBER_VERIFIED', 'WRONG_CODE'] as const;
/** The spelling of the real service's field table (spec 4, detail 3), stored as NUMBER_VERIFIED. */
const RESULT_SPELLINGS: Readonly<Record<string, (typeof CONVERSION_RESULTS)[number]>> = {
  NUMBER_VERIFIED: 'NUMBER_VERIFIED',
  NUMBER_VERIFIERD: 'NUMBER_VERIFIED',
  WRONG_CODE: 'WRONG_CODE',
};
const MAX_CONVERSIONS = 1000;
/**
 * The largest valid report: 1000 conversions of a message uuid, a result and a code of up to 32 characters (fields
 * beyond these are ignored, not stored: a body is sized without them), some 750 KB escaped at worst.
 */
const CONVERSION_BODY_LIMIT = bodyLimitFor(
  Type.Array(
    Type.Object(
      {
        messageUuid: Type.String({ format: 'uuid' }),
        result: Type.Enum(Object.keys(RESULT_SPELLINGS)),
        code: Type.String({ maxLength: 32 }),
      },
      { additionalProperties: false },
    ),
    { maxItems: MAX_CONVERSIONS },
  ),
);

interface ConversionResponse {
  errors: boolean;
  items: ({ messageUuid: string; code: number } | { messageUuid: unknown; code: number; msg: string })[];
}

/**
 * POST /api/v1/flashcall-conversion: FLASHCALL results reported by the client, recorded per
 * message. Item codes: 201 recorded, 404 unknown or not a FLASHCALL message of this account, 422 bad item. A message
 * has one conversion: a later report replaces the earlier one, also within one request.
 */
export async function recordConversions(
  ctx: AppContext,
  accountId: number,
  body: unknown,
  key: string | undefined,
): Promise<ConversionResponse> {
  if (!Array.isArray(body))
    throw herald('unprocessable', { reason: 'Request body must be a JSON array of conversion objects' });
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_CONVERSIONS)
    throw herald('unprocessable', { reason: `Max count of conversions is ${MAX_CONVERSIONS}` });
  const now = ctx.clock.now();
  const request = { accountId, operation: 'flashcall-conversion', key, body, now };
  const earlier = await idempotentReplay<ConversionResponse>(ctx.db, request);
  if (earlier) return earlier.body;

  const result = await runIdempotent(ctx.db, request, async (tx) => {
    const ids = body.flatMap((item: unknown) =>
      isPlainObject(item) && typeof item.messageUuid === 'string' && UUID_PATTERN.test(item.messageUuid)
        ? [item.messageUuid.toLowerCase()]
        : [],
    );
    const known = await messageOutboundFlashcallIds(tx, accountId, ids);
    // By message: a later item for the same message replaces an earlier one (one row may not be upserted twice).
    const records = new Map<string, { result: string; code: string | null }>();
    const items = body.map((item: unknown): ConversionResponse['items'][number] => {
      if (!isPlainObject(item)) return { messageUuid: null, code: 422, msg: 'Conversion must be a JSON object' };
      const { messageUuid, result: outcome, code } = item;
      if (typeof messageUuid !== 'string')
        return { messageUuid: messageUuid ?? null, code: 422, msg: 'Missing messageUuid' };
      const spelled = typeof outcome === 'string' && Object.hasOwn(RESULT_SPELLINGS, outcome);
      const result = spelled ? RESULT_SPELLINGS[outcome as string] : null;
      if (!result) return { messageUuid, code: 422, msg: `Invalid result: ${JSON.stringify(outcome ?? null)}` };
      if (code !== undefined && code !== null && (typeof code !== 'string' || code.length > 32)) {
        return { messageUuid, code: 422, msg: `Invalid code: ${JSON.stringify(code)}` };
      }
      if (!UUID_PATTERN.test(messageUuid) || !known.has(messageUuid.toLowerCase()))
        return { messageUuid, code: 404, msg: 'Message not found' };
      const id = messageUuid.toLowerCase();
      records.set(id, { result, code: (code as string | undefined) ?? null });
      return { messageUuid, code: 201 };
    });
    await conversionUpsert(
      tx,
      accountId,
      [...records].map(([messageId, r]) => ({ messageId, ...r })),
      now,
    );
    // A verified number is a real subscriber: proof of real traffic on its range (fraud/, pumping).
    const verified = [...records].filter(([, r]) => r.result === 'NUMBER_VERIFIED');
    await pumpingProofs(
      tx,
      accountId,
      verified.map(([id]) => known.get(id)!),
      now,
    );
    return { statusCode: 200, body: { errors: items.some((i) => i.code !== 201), items } };
  });
  return result.body;
}

export function registerConversionRoute(app: HeraldApp, ctx: AppContext): void {
  app.post(
    '/api/v1/flashcall-conversion',
    {
      onRequest: requireToken(ctx, ['traffic']),
      bodyLimit: CONVERSION_BODY_LIMIT,
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags: ['Conversions'],
        summary: 'Report FLASHCALL conversions (Bearer TOKEN_1); also served on HERALD_CONVERSION_PORT',
        description: 'One conversion per message: a later report for a message replaces the earlier one.',
        security: [{ bearerToken: [] }],
        headers: IdempotencyHeaders,
        body: Type.Array(
          Type.Object({
            messageUuid: Type.String({ format: 'uuid' }),
            result: Type.Enum(Object.keys(RESULT_SPELLINGS), {
              description: "NUMBER_VERIFIERD (the field table's spelling) is NUMBER_VERIFIED",
            }),
            code: Type.Optional(Type.String({ maxLength: 32 })),
          }),
          {
            minItems: 1,
            maxItems: MAX_CONVERSIONS,
            examples: [
              [{ messageUuid: '0b4c5d3e-8f1a-4c2b-9e6d-7a1f2b3c4d5e', result: 'NUMBER_VERIFIED', code: '4821' }],
            ],
          },
        ),
        response: {
          200: Type.Object({
            errors: Type.Boolean(),
            items: Type.Array(
              Type.Object({ messageUuid: Type.Unknown(), code: Type.Integer(), msg: Type.Optional(Type.String()) }),
            ),
          }),
          ...errorResponses(400, 401, 403, 409, 415, 422),
        },
      },
    },
    async (request) =>
      recordConversions(
        ctx,
        principalOf(request).accountId,
        request.body,
        idempotencyKeyOf(request.headers['idempotency-key']),
      ),
  );
}

export const conversionRoutes: Routes = (app, ctx) => registerConversionRoute(app, ctx);
