import { type TProperties, Type, type TSchema } from 'typebox';
import { CHANNELS } from '../shared/channels.js';

/** The error body of every failure (spec 2.7). */
export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Integer({ description: 'HTTP status x 10 + n; see docs/errors.md' }),
        msg: Type.String(),
        index: Type.Optional(Type.Integer({ description: 'position of the offending message in the batch' })),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorBody', description: 'Error' },
);

export const errorResponses = (...statuses: number[]): Record<number, TSchema> =>
  Object.fromEntries(statuses.map((status) => [status, Type.Ref('ErrorBody')]));

export const ChannelType = Type.Enum(CHANNELS);

/** The header of every creating POST (DESIGN 12): the same key and request within 24 h get the first answer. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Same key and request within 24 h returns the first response and changes nothing' }),
  ),
});

export const Balance = Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Number(), {
  description: 'Currency code -> balance in that currency',
});

/**
 * A row id. The columns are bigint, but a JSON number is exact only up to 2^53 and no row gets near it; without the
 * bound, 1e308 or 2^63 would pass as an integer and reach the database as a value it refuses (a 500, not a 422).
 */
export const Id = () => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const IdParam = Type.Object({ id: Id() });

/** Keeps the offset, (page - 1) x per_page, an exact integer the database takes. */
export const MAX_PAGE = 1_000_000_000;

/**
 * A query string's schema: closed, so that an unknown or misspelt parameter is 422 4220 `Invalid <parameter>`
 * (DESIGN 12). The server refuses to start with a query schema that is not closed (server.ts).
 */
export const Query = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

/** The page parameters of a list. */
export const PAGE_PARAMETERS = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
};

export const PageQuery = Query(PAGE_PARAMETERS);

export function paginated<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
  });
}
