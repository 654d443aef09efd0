// The settings of connectors and routes, as HERALD_CONFIG states them (config/configFile.ts reads and checks the
// file): the connectors' own, so that they take their settings without knowing where the configuration comes from.
import { type Static, Type } from 'typebox';
import { CHANNELS } from '../shared/channels.js';
import { Breaker, CarrierBlocklist, Flow } from './flowSettings.js';
import type { HttpConnectorSettings } from './http/declarative/httpConnectorConfig.js';

export { DEFAULT_URGENT_PERCENT } from './flowSettings.js';

export const SMPP_BIND_MODES = ['transceiver', 'transmitter+receiver'] as const;
export const SMPP_LONG_MESSAGES = ['udh8', 'udh16', 'sar', 'payload'] as const;
export const SMPP_RECEIPT_IDS = ['as-is', 'hex', 'decimal'] as const;

/**
 * Defaults of the SMPP options carriers differ in (DESIGN 17). Source TON/NPI have none: without them the sender
 * decides (alphanumeric 5/0, 10 digits and more 1/1, shorter 3/0).
 */
export const SMPP_DEFAULTS = {
  systemType: 'herald',
  bindMode: 'transceiver',
  sessions: 1,
  tls: false,
  destTon: 1,
  destNpi: 1,
  dataCoding: 0,
  ucs2: true,
  longMessages: 'udh8',
  receiptIds: 'as-is',
} as const;

/** TLS with files of its own (PEM paths) or another name to check the SMSC's certificate against. */
export const SmppTlsSchema = Type.Object(
  {
    ca: Type.Optional(Type.String({ minLength: 1 })),
    cert: Type.Optional(Type.String({ minLength: 1 })),
    key: Type.Optional(Type.String({ minLength: 1 })),
    servername: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export const SmppConnectorSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    type: Type.Literal('smpp'),
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 1, maximum: 65_535 }),
    systemId: Type.String({ minLength: 1, maxLength: 15 }),
    password: Type.String({ maxLength: 8 }),
    /** Some SMSCs refuse an empty system_type (Kannel's opensmppbox does): `herald` unless told. */
    systemType: Type.Optional(Type.String({ maxLength: 12, default: SMPP_DEFAULTS.systemType })),
    bindMode: Type.Optional(Type.Enum(SMPP_BIND_MODES, { default: SMPP_DEFAULTS.bindMode })),
    /** Binds of this connector, sharing its window and rate and matching each other's receipts. */
    sessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, default: SMPP_DEFAULTS.sessions })),
    /** SMPP over TLS (node:tls): true verifies the SMSC against the system's CAs; files are PEM paths. */
    tls: Type.Optional(Type.Union([Type.Boolean(), SmppTlsSchema], { default: false })),
    sourceTon: Type.Optional(Type.Integer({ minimum: 0, maximum: 6 })),
    sourceNpi: Type.Optional(Type.Integer({ minimum: 0, maximum: 18 })),
    destTon: Type.Optional(Type.Integer({ minimum: 0, maximum: 6, default: SMPP_DEFAULTS.destTon })),
    destNpi: Type.Optional(Type.Integer({ minimum: 0, maximum: 18, default: SMPP_DEFAULTS.destNpi })),
    /** data_coding for text in the SMSC's default alphabet: 0 (GSM 03.38) or 3 (Latin-1). */
    dataCoding: Type.Optional(Type.Enum([0, 3] as const, { default: SMPP_DEFAULTS.dataCoding })),
    /** Text outside the default alphabet goes as UCS-2 (data_coding 8); false refuses it. */
    ucs2: Type.Optional(Type.Boolean({ default: SMPP_DEFAULTS.ucs2 })),
    longMessages: Type.Optional(Type.Enum(SMPP_LONG_MESSAGES, { default: SMPP_DEFAULTS.longMessages })),
    /** How a receipt's id is written relative to the submit_sm_resp id. */
    receiptIds: Type.Optional(Type.Enum(SMPP_RECEIPT_IDS, { default: SMPP_DEFAULTS.receiptIds })),
    enquireLinkSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 30 })),
    responseTimeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600, default: 10 })),
    reconnectMinMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 600_000, default: 500 })),
    reconnectMaxMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 600_000, default: 30_000 })),
    ...Flow,
    ...CarrierBlocklist,
  },
  { additionalProperties: false },
);

export const WhatsappConnectorSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    type: Type.Literal('whatsapp'),
    /** Graph API base, e.g. https://graph.facebook.com/v21.0 */
    baseUrl: Type.String({ pattern: '^https?://' }),
    phoneNumberId: Type.String({ minLength: 1 }),
    accessToken: Type.String({ minLength: 1 }),
    /** App secret: verifies X-Hub-Signature-256 of the webhooks. */
    appSecret: Type.String({ minLength: 1 }),
    /** Token Meta echoes when the webhook is registered (GET hub.verify_token). */
    verifyToken: Type.Optional(Type.String()),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 15 })),
    ...Flow,
    ...Breaker,
  },
  { additionalProperties: false },
);

export const PROVIDER_TYPES = ['viber', 'vk', 'flashcall', 'voicecode'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const ProviderConnectorSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    type: Type.Enum(PROVIDER_TYPES),
    baseUrl: Type.String({ pattern: '^https?://' }),
    apiKey: Type.String({ minLength: 1 }),
    /** Verifies X-Signature of the provider's status webhooks. */
    webhookSecret: Type.String({ minLength: 1 }),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 15 })),
    ...Flow,
    ...Breaker,
  },
  { additionalProperties: false },
);

/** Telegram's public Bot API and Gateway API (DESIGN 18). */
export const TELEGRAM_BOT_API_URL = 'https://api.telegram.org';
export const TELEGRAM_GATEWAY_URL = 'https://gatewayapi.telegram.org';

/**
 * TELEGRAM texts over the Bot API. The bots are the accounts' TELEGRAM sender names, with the tokens the operator
 * attaches to them; this connector sends for all of them.
 */
export const TelegramBotConnectorSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    type: Type.Literal('telegram-bot'),
    /** The Bot API's base (a local Bot API server's, or the simulator's). */
    baseUrl: Type.Optional(Type.String({ pattern: '^https?://', default: TELEGRAM_BOT_API_URL })),
    /**
     * Herald's address as Telegram reaches it (https, a public name): bots' webhooks are registered at
     * `{publicUrl}/webhooks/{id}/bots/{sender name id}`. Without it no webhook is registered: no subscriber can link.
     */
    publicUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
    /**
     * For the embedded simulator only: a number without a link is taken as linked, to the chat the simulator gives it
     * (every number counts as linked there, DESIGN 18).
     */
    simulatedLinks: Type.Optional(Type.Boolean({ default: false })),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 15 })),
    ...Flow,
    ...Breaker,
  },
  { additionalProperties: false },
);

/** TELEGRAM codes over the Gateway API, with the operator's Gateway token. */
export const TelegramGatewayConnectorSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    type: Type.Literal('telegram-gateway'),
    baseUrl: Type.Optional(Type.String({ pattern: '^https?://', default: TELEGRAM_GATEWAY_URL })),
    /** The Gateway API token (https://gateway.telegram.org/account/api): authorises calls and signs reports. */
    token: Type.String({ minLength: 1 }),
    /** Herald's address as Telegram reaches it: delivery reports go to `{publicUrl}/webhooks/{id}`. */
    publicUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 15 })),
    ...Flow,
    ...Breaker,
  },
  { additionalProperties: false },
);

export const RouteSchema = Type.Object(
  {
    channel: Type.Enum(CHANNELS),
    /** Destination prefixes (E.164 digits) the route serves; none: every destination. Longest prefix wins. */
    prefixes: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]{1,15}$' }), { default: [] })),
    /** Connector ids in order of preference: the first available one is used, the next ones are fallbacks. */
    connectors: Type.Array(Type.String(), { minItems: 1 }),
  },
  { additionalProperties: false },
);

/** The options of DESIGN 17: optional in a connector built in code (the connector applies SMPP_DEFAULTS). */
type SmppCarrierOption =
  | 'bindMode'
  | 'sessions'
  | 'tls'
  | 'sourceTon'
  | 'sourceNpi'
  | 'destTon'
  | 'destNpi'
  | 'dataCoding'
  | 'ucs2'
  | 'longMessages'
  | 'receiptIds'
  | 'urgentPercent'
  | 'blocklistErrorCodes';
type SmppStatic = Static<typeof SmppConnectorSchema>;
export type SmppConnectorConfig = Required<Omit<SmppStatic, SmppCarrierOption>> & Pick<SmppStatic, SmppCarrierOption>;
export type SmppTlsConfig = Exclude<SmppStatic['tls'], undefined>;
/** What every HTTP connector's configuration has once defaults are applied. */
export interface HttpFlowConfig {
  readonly window: number;
  readonly mps: number;
  readonly urgentPercent?: number;
  readonly timeoutSeconds: number;
  readonly breakerFailures: number;
  readonly breakerOpenSeconds: number;
}
export type WhatsappConnectorConfig = Static<typeof WhatsappConnectorSchema> & HttpFlowConfig;
export type ProviderConnectorConfig = Static<typeof ProviderConnectorSchema> & HttpFlowConfig;
export type TelegramBotConnectorConfig = Static<typeof TelegramBotConnectorSchema> &
  HttpFlowConfig & { readonly baseUrl: string; readonly simulatedLinks: boolean };
export type TelegramGatewayConnectorConfig = Static<typeof TelegramGatewayConnectorSchema> &
  HttpFlowConfig & { readonly baseUrl: string };
export type ConnectorConfig =
  | SmppConnectorConfig
  | WhatsappConnectorConfig
  | ProviderConnectorConfig
  | TelegramBotConnectorConfig
  | TelegramGatewayConnectorConfig
  | HttpConnectorConfig;
/** A declarative HTTP connector (DESIGN 19): its channel is its own setting. */
export type HttpConnectorConfig = HttpConnectorSettings & HttpFlowConfig;

/** The carrier blocklist codes of each connector that has some (SMPP and declarative HTTP connectors). */
export function blocklistCodesOf(connectors: readonly ConnectorConfig[]): Map<string, ReadonlySet<number>> {
  return new Map(
    connectors.flatMap((c) =>
      'blocklistErrorCodes' in c && c.blocklistErrorCodes?.length ? [[c.id, new Set(c.blocklistErrorCodes)]] : [],
    ),
  );
}

/** The channel a connector carries. */
export function connectorChannel(config: ConnectorConfig): (typeof CHANNELS)[number] {
  return config.type === 'http' ? config.channel : CONNECTOR_CHANNEL[config.type];
}
export type RouteConfig = Required<Static<typeof RouteSchema>>;

/** The channel each connector type carries. */
export const CONNECTOR_CHANNEL = {
  smpp: 'SMS',
  whatsapp: 'WHATSAPP',
  viber: 'VIBER',
  vk: 'VK',
  flashcall: 'FLASHCALL',
  voicecode: 'VOICECODE',
  'telegram-bot': 'TELEGRAM',
  'telegram-gateway': 'TELEGRAM',
} as const;
