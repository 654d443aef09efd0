import { Type, type Static } from 'typebox';
import { Balance, Id } from '../http/schemas.js';

/** An account as the operator API shows it. */
export const Account = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('blocked')]),
  currency: Type.String(),
  channels: Type.Record(Type.String(), Type.Boolean()),
  inbound: Type.Boolean(),
  creditLimit: Type.Number(),
  maxRate: Type.Union([Type.Number(), Type.Null()], {
    description: 'messages per second over all channels; null: no cap',
  }),
  callbackSecret: Type.String(),
  balance: Balance,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export const Token = Type.Object({
  id: Type.String(),
  type: Type.String(),
  trafficCenterId: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String(),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
  createdByUser: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'The user whose web sign-in this key descends from; the key is revoked when that user is deleted or the ' +
      "operator resets the user's password. Null for keys that outlive users.",
  }),
});
/** The body that issues an API key, on the client's and on the operator's route. */
export const ApiKeyRequest = Type.Object(
  {
    type: Type.Union([Type.Literal('traffic'), Type.Literal('system'), Type.Literal('verify')], {
      description: 'traffic = TOKEN_1 (sending), system = TOKEN_2 (settings), verify = TOKEN_3 (one-time codes)',
    }),
    trafficCenterId: Type.Optional(Id()),
  },
  { additionalProperties: false },
);
export const LedgerEntry = Type.Object({
  id: Type.Integer(),
  currency: Type.String(),
  amount: Type.Number(),
  kind: Type.String(),
  reference: Type.Union([Type.String(), Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

export type AccountJson = Static<typeof Account>;
export type TokenJson = Static<typeof Token>;
export type ApiKeyRequestJson = Static<typeof ApiKeyRequest>;
