import { Type, type Static } from 'typebox';
import { Balance, Id } from '../http/schemas.js';
import { PUMPING_MODES } from '../shared/guardSettings.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';

const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
const Countries = Type.Array(Country, { maxItems: 300, uniqueItems: true });
// Counts per destination per sliding hour; 10,000 is far above any person's traffic.
const FloodLimit = Type.Integer({ minimum: 0, maximum: 10_000 });
const GuardFields = {
  geoPermissions: Type.Union([
    Type.Object(
      {
        allow: Type.Optional(Countries),
        deny: Type.Optional(Countries),
        mode: Type.Union([Type.Literal('enforce'), Type.Literal('monitor')]),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
  flood: Type.Union([
    Type.Object({ identical: FloodLimit, any: FloodLimit }, { additionalProperties: false }),
    Type.Null(),
  ]),
  dailySpendLimit: Type.Union([
    Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Number({ minimum: 0, maximum: 1e12 }), {
      maxProperties: 20,
      additionalProperties: false,
      description: 'per currency (ISO 4217), per calendar day in the account zone',
    }),
    Type.Null(),
  ]),
  consentRequired: Type.Array(Type.Enum(TRAFFIC_TYPES), {
    uniqueItems: true,
    maxItems: TRAFFIC_TYPES.length,
  }),
  pumping: Type.Object(
    {
      mode: Type.Enum(PUMPING_MODES),
      rangeFloor: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
      countryFloor: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
      factor: Type.Number({ minimum: 1, maximum: 1000 }),
    },
    { additionalProperties: false },
  ),
};
/** The guard settings in full (the effective ones, or the operator's with defaults). */
export const GuardSettings = Type.Object(GuardFields);
/** One side's stored settings: the fields it sets. */
export const GuardSide = Type.Partial(Type.Object(GuardFields));
/**
 * A change of one side's settings: absent fields keep their value; null clears a client's narrowing (see
 * accountGuardChange for the operator's nulls).
 */
export const GuardChange = Type.Object(
  {
    geoPermissions: Type.Optional(GuardFields.geoPermissions),
    flood: Type.Optional(GuardFields.flood),
    dailySpendLimit: Type.Optional(GuardFields.dailySpendLimit),
    consentRequired: Type.Optional(Type.Union([GuardFields.consentRequired, Type.Null()])),
    pumping: Type.Optional(Type.Union([GuardFields.pumping, Type.Null()])),
  },
  {
    additionalProperties: false,
    examples: [{ geoPermissions: { allow: ['RU', 'BY'], mode: 'enforce' }, dailySpendLimit: { RUB: 20000 } }],
  },
);
/** A change of settings in the audit: who (operator, token:<key id>, user:<id>), when, before and after. */
export const SettingsAudit = Type.Object({
  id: Type.String(),
  changedAt: Type.String(),
  side: Type.Union([Type.Literal('operator'), Type.Literal('client')]),
  actor: Type.String({ description: "'operator', 'token:<key id>' or 'user:<id>'" }),
  before: GuardSide,
  after: GuardSide,
});
/** An account's guard and consent settings: the operator's, the client's narrowing, and the effective ones. */
export const AccountSettings = Type.Object({ operator: GuardSide, client: GuardSide, effective: GuardSettings });

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
  smppBinds: Type.Integer({ description: 'SMPP binds at once over every api process (DESIGN 22)' }),
  inboundVia: Type.Array(Type.Literal('smpp'), {
    description: 'where inbound SMS go besides the inbound rules: ["smpp"] also to the SMPP binds',
  }),
  callbackSecret: Type.String(),
  settings: AccountSettings,
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
  { additionalProperties: false, examples: [{ type: 'traffic' }] },
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

export type SettingsAuditJson = Static<typeof SettingsAudit>;
export type GuardChangeJson = Static<typeof GuardChange>;
export type AccountJson = Static<typeof Account>;
export type TokenJson = Static<typeof Token>;
export type ApiKeyRequestJson = Static<typeof ApiKeyRequest>;
