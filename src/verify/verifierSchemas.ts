import { Type, type Static } from 'typebox';
import { CHANNELS } from '../shared/channels.js';
import { SENDER_NAME_MAX_LENGTH } from '../senderNames/index.js';

/** Bounds of a verifier's settings (DESIGN 16). */
export const VERIFIER_LIMITS = {
  codeLength: { minimum: 4, maximum: 8 },
  codeTtl: { minimum: 60, maximum: 3600 },
  maxChecks: { minimum: 1, maximum: 10 },
  timeout: { minimum: 30, maximum: 900 },
  /** As many steps as a cascade has at most. */
  steps: 6,
  brand: 64,
  name: 200,
} as const;

/**
 * What a new verifier takes for the optional settings it leaves out (DESIGN 16). Applied by the code that creates
 * one, never as a schema `default`: Ajv would write it into every request body that leaves the field out, and an
 * update that names only `name` would then set them back (every PATCH changes only the fields given, DESIGN 12).
 */
export const VERIFIER_DEFAULTS = { codeLength: 4, codeTtl: 300, maxChecks: 3 } as const;

/**
 * A brand as codes name it (`<brand>: <code>`, and the VOICECODE template `Код авторизации от {brand}: {code}.`):
 * printable, no line breaks, no space at either end.
 */
const BRAND_PATTERN = '^\\S(?:[^\\u0000-\\u001f\\u007f]*\\S)?$';

export const WorkflowStepSchema = Type.Object(
  {
    channelType: Type.Enum(CHANNELS),
    senderName: Type.String({ minLength: 1, maxLength: SENDER_NAME_MAX_LENGTH }),
    timeout: Type.Integer({
      ...VERIFIER_LIMITS.timeout,
      description: 'seconds this step waits for a confirmation before the next step is sent',
    }),
  },
  { additionalProperties: false },
);

const settingsFields = {
  name: Type.String({ minLength: 1, maxLength: VERIFIER_LIMITS.name }),
  brand: Type.String({ minLength: 1, maxLength: VERIFIER_LIMITS.brand, pattern: BRAND_PATTERN }),
  codeLength: Type.Integer({
    ...VERIFIER_LIMITS.codeLength,
    description: `digits of a code (a new verifier without it: ${VERIFIER_DEFAULTS.codeLength})`,
  }),
  codeTtl: Type.Integer({
    ...VERIFIER_LIMITS.codeTtl,
    description: `seconds a code can be checked (a new verifier without it: ${VERIFIER_DEFAULTS.codeTtl})`,
  }),
  maxChecks: Type.Integer({
    ...VERIFIER_LIMITS.maxChecks,
    description: `checks of one code before it expires (a new verifier without it: ${VERIFIER_DEFAULTS.maxChecks})`,
  }),
  workflow: Type.Array(WorkflowStepSchema, { minItems: 1, maxItems: VERIFIER_LIMITS.steps }),
};

export const VerifierCreate = Type.Object(
  {
    name: settingsFields.name,
    brand: settingsFields.brand,
    codeLength: Type.Optional(settingsFields.codeLength),
    codeTtl: Type.Optional(settingsFields.codeTtl),
    maxChecks: Type.Optional(settingsFields.maxChecks),
    workflow: settingsFields.workflow,
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Вход в приложение',
        brand: 'Lavka',
        codeLength: 4,
        codeTtl: 300,
        maxChecks: 3,
        workflow: [
          { channelType: 'VIBER', senderName: 'Herald', timeout: 60 },
          { channelType: 'SMS', senderName: 'Lavka', timeout: 120 },
        ],
      },
    ],
  },
);

/** An update names the fields it changes; the verifier that results is validated as a new one. */
export const VerifierUpdate = Type.Object(
  {
    name: Type.Optional(settingsFields.name),
    brand: Type.Optional(settingsFields.brand),
    codeLength: Type.Optional(settingsFields.codeLength),
    codeTtl: Type.Optional(settingsFields.codeTtl),
    maxChecks: Type.Optional(settingsFields.maxChecks),
    workflow: Type.Optional(settingsFields.workflow),
  },
  { additionalProperties: false, examples: [{ codeTtl: 600, maxChecks: 5 }] },
);

export const VerifierObject = Type.Object({
  gatewayId: Type.String({ description: 'what codes are sent through: POST /api/v1/verifier/send {gatewayId}' }),
  name: Type.String(),
  brand: Type.String(),
  codeLength: Type.Integer(),
  codeTtl: Type.Integer(),
  maxChecks: Type.Integer(),
  workflow: Type.Array(WorkflowStepSchema),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const GatewayIdParam = Type.Object({ gatewayId: Type.String({ maxLength: 64 }) });

export type VerifierCreateJson = Static<typeof VerifierCreate>;
export type VerifierUpdateJson = Static<typeof VerifierUpdate>;
export type VerifierJson = Static<typeof VerifierObject>;

const conversionFields = {
  sends: Type.Integer(),
  confirmations: Type.Integer(),
  conversionRate: Type.Union([Type.Number(), Type.Null()], { description: 'confirmations / sends, 4 decimals' }),
};
const ChannelConversion = Type.Object({ channelType: Type.Enum(CHANNELS), ...conversionFields });

export const VerificationStatisticsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC midnight) or ISO 8601; default to - 30 days' })),
    to: Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC midnight) or ISO 8601; default now' })),
    gatewayId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'one verifier only' })),
  },
  { additionalProperties: false },
);

export const VerificationStatisticsObject = Type.Object({
  from: Type.String(),
  to: Type.String(),
  verifiers: Type.Array(
    Type.Object({
      gatewayId: Type.String(),
      name: Type.Union([Type.String(), Type.Null()], { description: 'null for a verifier deleted since' }),
      ...conversionFields,
      channels: Type.Array(ChannelConversion),
    }),
  ),
  channels: Type.Array(ChannelConversion),
  total: Type.Object(conversionFields),
});
