import { Type } from 'typebox';
import { principalOf, requireToken } from '../accounts/index.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import { ChannelType, errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { fromMicros, toMicros } from '../money/index.js';
import { normaliseDestination } from '../numbering/index.js';
import type { Channel } from '../shared/channels.js';
import { gsmSeptetCount, SMS_CAPACITY, type SmsEncoding, smsEncoding } from '../sms/index.js';
import { TEXT_BOUNDS, validateContent } from './channelContent.js';

/** Destinations per estimate: as many as one send or one dispatch add takes. */
export const MAX_ESTIMATE = 1000;

const EstimateItem = Type.Union([
  Type.Object({
    destination: Type.Union([Type.String(), Type.Null()]),
    parts: Type.Integer({ description: 'SMS parts (1 for every other channel)' }),
    encoding: Type.Union([Type.Enum(['gsm7', 'ucs2']), Type.Null()], { description: 'SMS only' }),
    characters: Type.Union([Type.Integer(), Type.Null()], {
      description: 'SMS only: septets (gsm7, an extension-table character counts 2) or UTF-16 units (ucs2)',
    }),
    partCapacity: Type.Union([Type.Integer(), Type.Null()], {
      description: 'SMS only: what one part holds: 160 or 70 for a single part, 153 or 67 each for a long message',
    }),
    pricePerPart: Type.Union([Type.Number(), Type.Null()], { description: 'null: no tariff applies' }),
    price: Type.Union([Type.Number(), Type.Null()]),
    currency: Type.Union([Type.String(), Type.Null()]),
  }),
  Type.Object({ destination: Type.Union([Type.String(), Type.Null()]), errorCode: Type.Integer(), msg: Type.String() }),
]);

/**
 * POST /api/v1/message/estimate (TOKEN_1 or TOKEN_2): what messages would cost before they are sent: the parts of
 * each text, its encoding and the account's price by its tariffs. Reads the tariff cache only; stores nothing,
 * reserves nothing.
 */
export const estimateRoutes: Routes = (app, ctx) => {
  app.post(
    '/api/v1/message/estimate',
    {
      onRequest: requireToken(ctx, ['traffic', 'system']),
      bodyLimit: ctx.config.bodyLimitBytes,
      schema: {
        tags: ['Messages'],
        summary: 'Parts and price of messages before they are sent',
        description:
          'Per item: the SMS parts of its text and their encoding (GSM 03.38 with its extension table, else ' +
          "UCS-2), and the price by the account's tariffs, as a send would reserve it (links counted as " +
          'written: a shortUrl message costs what its shortened text does). Every other channel is one part. An ' +
          'item that could not be sent (its destination, its text) gets errorCode and msg as a send would answer. ' +
          'Stores and reserves nothing.',
        security: [{ basicToken: [] }],
        body: Type.Object(
          {
            channelType: ChannelType,
            items: Type.Array(
              Type.Object(
                {
                  destination: Type.Optional(
                    Type.String({ maxLength: 100, description: 'none: the parts only, without a price' }),
                  ),
                  text: Type.Optional(Type.String({ maxLength: TEXT_BOUNDS.SMS.units, description: 'SMS text' })),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: MAX_ESTIMATE },
            ),
          },
          {
            additionalProperties: false,
            examples: [{ channelType: 'SMS', items: [{ destination: '79161234567', text: 'С наступающим, Анна!' }] }],
          },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(EstimateItem),
            total: Type.Object({
              parts: Type.Integer(),
              price: Type.Record(Type.String(), Type.Number(), { description: 'currency -> sum of the prices' }),
              unpriced: Type.Integer({
                description: 'items without a price: no destination, or no tariff for it',
              }),
              refused: Type.Integer({ description: 'items with an errorCode' }),
            }),
          }),
          ...errorResponses(401, 403, 413, 422),
        },
      },
    },
    async (request) => {
      const { channelType, items } = request.body;
      const { accountId } = principalOf(request);
      await ctx.tariffs.refresh();
      const total = { parts: 0, price: new Map<string, bigint>(), unpriced: 0, refused: 0 };
      const answers = items.map(({ destination, text }) => {
        try {
          const number = destination === undefined ? undefined : normaliseDestination(destination);
          if (destination !== undefined && !number) throw herald('invalidMsisdn');
          const sms = channelType === 'SMS' ? smsFigures(text ?? '') : undefined;
          const parts = sms?.parts ?? 1;
          const tariff =
            number && ctx.tariffs.lookup(accountId, channelType as Channel, number.msisdn, number.country ?? null);
          const price = tariff ? toMicros(tariff.perPart) * BigInt(parts) : undefined;
          total.parts += parts;
          if (tariff && price !== undefined)
            total.price.set(tariff.currency, (total.price.get(tariff.currency) ?? 0n) + price);
          else total.unpriced += 1;
          return {
            destination: destination ?? null,
            parts,
            encoding: sms?.encoding ?? null,
            characters: sms?.characters ?? null,
            partCapacity: sms?.partCapacity ?? null,
            pricePerPart: tariff?.perPart ?? null,
            price: price === undefined ? null : Number(fromMicros(price)),
            currency: tariff?.currency ?? null,
          };
        } catch (error) {
          if (!(error instanceof HeraldError)) throw error;
          total.refused += 1;
          return { destination: destination ?? null, errorCode: error.code, msg: error.message };
        }
      });
      return {
        items: answers,
        total: {
          parts: total.parts,
          price: Object.fromEntries(
            [...total.price].map(([currency, micros]) => [currency, Number(fromMicros(micros))]),
          ),
          unpriced: total.unpriced,
          refused: total.refused,
        },
      };
    },
  );
};

/** An SMS text's parts as the SMSC gets them (validateContent: the send's own count and its limits). */
function smsFigures(text: string): {
  parts: number;
  encoding: SmsEncoding;
  characters: number;
  partCapacity: number;
} {
  const { totalParts } = validateContent('SMS', text);
  const encoding = smsEncoding(text);
  const capacity = SMS_CAPACITY[encoding];
  return {
    parts: totalParts,
    encoding,
    characters: encoding === 'gsm7' ? gsmSeptetCount(text) : text.length,
    partCapacity: totalParts === 1 ? capacity.single : capacity.multi,
  };
}
