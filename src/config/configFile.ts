import { readFileSync } from 'node:fs';
import { type Static, type TSchema, Type } from 'typebox';
import Value from 'typebox/value';
import YAML from 'yaml';
import { CHANNELS } from '../shared/channels.js';
import { ConfigError } from './config.js';

/** The share (percent) of a connector's window kept for AUTHORIZE and TRANSACT messages unless it says. */
export const DEFAULT_URGENT_PERCENT = 20;

/** Flow control shared by every connector type. */
const Flow = {
  /** Submissions in flight at once (SMPP: PDUs awaiting their response). */
  window: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 100 })),
  /** Submissions started per second. */
  mps: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1000 })),
  /** The share (percent) of the window only AUTHORIZE and TRANSACT messages may take. */
  urgentPercent: Type.Optional(Type.Integer({ minimum: 0, maximum: 90, default: DEFAULT_URGENT_PERCENT })),
};

/**
 * An HTTP provider that fails this many submissions in a row (no answer, timeout, 5xx) is taken out of its routes
 * for the pause, so that messages go to the next connector; then it is tried again.
 */
const Breaker = {
  breakerFailures: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 5 })),
  breakerOpenSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 30 })),
};

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
const SmppTlsSchema = Type.Object(
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

export const TariffSchema = Type.Object(
  {
    /** Without an account: the default for every account. */
    accountId: Type.Optional(Type.Integer({ minimum: 1 })),
    channelType: Type.Enum(CHANNELS),
    prefix: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    price: Type.Number({ minimum: 0, maximum: 1e9 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    connectors: Type.Optional(
      Type.Array(Type.Union([SmppConnectorSchema, WhatsappConnectorSchema, ProviderConnectorSchema]), { default: [] }),
    ),
    routes: Type.Optional(Type.Array(RouteSchema, { default: [] })),
    tariffs: Type.Optional(Type.Array(TariffSchema, { default: [] })),
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
  | 'urgentPercent';
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
export type ConnectorConfig = SmppConnectorConfig | WhatsappConnectorConfig | ProviderConnectorConfig;
export type RouteConfig = Required<Static<typeof RouteSchema>>;

export type TariffConfig = Static<typeof TariffSchema>;

export interface ConfigFile {
  readonly connectors: readonly ConnectorConfig[];
  readonly routes: readonly RouteConfig[];
  readonly tariffs: readonly TariffConfig[];
}

export const EMPTY_CONFIG_FILE: ConfigFile = { connectors: [], routes: [], tariffs: [] };

/** The channel each connector type carries. */
export const CONNECTOR_CHANNEL = {
  smpp: 'SMS',
  whatsapp: 'WHATSAPP',
  viber: 'VIBER',
  vk: 'VK',
  flashcall: 'FLASHCALL',
  voicecode: 'VOICECODE',
} as const;

/** Reads and validates HERALD_CONFIG (JSON, or YAML by extension); a problem stops start-up naming its place. */
export function loadConfigFile(file: string | undefined): ConfigFile {
  if (!file) return EMPTY_CONFIG_FILE;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('HERALD_CONFIG', `cannot read ${file}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = /\.ya?ml$/i.test(file) ? YAML.parse(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      'HERALD_CONFIG',
      `${file} is not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(error as Error).message}`,
    );
  }
  return parseConfigFile(data ?? {}, file);
}

export function parseConfigFile(data: unknown, source = 'config'): ConfigFile {
  const withDefaults = Value.Default(ConfigFileSchema, Value.Clone(data)) as Static<typeof ConfigFileSchema>;
  if (!Value.Check(ConfigFileSchema, withDefaults)) {
    throw new ConfigError('HERALD_CONFIG', `${source}: ${describeProblem(withDefaults)}`);
  }
  const connectors = (withDefaults.connectors ?? []) as ConnectorConfig[];
  const routes = (withDefaults.routes ?? []) as RouteConfig[];
  connectors.forEach((connector, i) => {
    if (connector.type === 'smpp') checkSmppConnector(connector as SmppConnectorConfig, `${source}: connectors[${i}]`);
  });
  const ids = new Set<string>();
  for (const connector of connectors) {
    if (ids.has(connector.id))
      throw new ConfigError('HERALD_CONFIG', `${source}: connector id ${connector.id} is used twice`);
    ids.add(connector.id);
  }
  routes.forEach((route, i) => {
    for (const id of route.connectors) {
      const connector = connectors.find((c) => c.id === id);
      if (!connector) throw new ConfigError('HERALD_CONFIG', `${source}: routes[${i}] names unknown connector ${id}`);
      if (CONNECTOR_CHANNEL[connector.type] !== route.channel) {
        throw new ConfigError(
          'HERALD_CONFIG',
          `${source}: routes[${i}] is for ${route.channel} ` +
            `but connector ${id} carries ${CONNECTOR_CHANNEL[connector.type]}`,
        );
      }
    }
  });
  const tariffs = (withDefaults.tariffs ?? []) as TariffConfig[];
  tariffs.forEach((t, i) => {
    if (t.prefix && t.country)
      throw new ConfigError('HERALD_CONFIG', `${source}: tariffs[${i}] has a prefix and a country; give one`);
  });
  return { connectors, routes, tariffs };
}

/** What the schema cannot say of an SMPP connector: settings that depend on each other, and readable TLS files. */
function checkSmppConnector(c: SmppConnectorConfig, place: string): void {
  // Some SMSCs refuse an empty system_type at bind (Kannel's opensmppbox does): refused here, not at the first bind.
  if (c.systemType === '') {
    throw new ConfigError(
      'HERALD_CONFIG',
      `${place}.systemType: must not be empty (connector ${c.id}); leave it out for the default "herald"`,
    );
  }
  if (c.reconnectMinMs > c.reconnectMaxMs) {
    throw new ConfigError(
      'HERALD_CONFIG',
      `${place}.reconnectMinMs: ${c.reconnectMinMs} exceeds reconnectMaxMs (${c.reconnectMaxMs})`,
    );
  }
  if (c.tls && typeof c.tls === 'object') {
    for (const key of ['ca', 'cert', 'key'] as const) {
      const file = c.tls[key];
      if (file === undefined) continue;
      try {
        readFileSync(file);
      } catch (error) {
        throw new ConfigError('HERALD_CONFIG', `${place}.tls.${key}: cannot read ${file}: ${(error as Error).message}`);
      }
    }
    if ((c.tls.cert === undefined) !== (c.tls.key === undefined)) {
      throw new ConfigError('HERALD_CONFIG', `${place}.tls: a client certificate needs both cert and key`);
    }
  }
}

const SCHEMA_OF_TYPE: Readonly<Record<string, TSchema>> = {
  smpp: SmppConnectorSchema,
  whatsapp: WhatsappConnectorSchema,
  ...Object.fromEntries(PROVIDER_TYPES.map((t) => [t, ProviderConnectorSchema])),
};

/**
 * The first problem as `path: message`. A connector is checked against the schema of its own `type`, so that the
 * message speaks of that type's fields rather than of another member of the union.
 */
function describeProblem(value: unknown): string {
  const connectors = (value as { connectors?: unknown }).connectors;
  if (Array.isArray(connectors)) {
    for (const [i, connector] of connectors.entries()) {
      const type = (connector as { type?: unknown } | null)?.type;
      const schema = typeof type === 'string' ? SCHEMA_OF_TYPE[type] : undefined;
      if (!schema) return `connectors[${i}].type: must be one of ${Object.keys(SCHEMA_OF_TYPE).join(', ')}`;
      const tls = (connector as { tls?: unknown }).tls;
      // A union's error speaks of its first member (boolean): an object is checked as the object form.
      const tlsProblem =
        type === 'smpp' && tls !== null && typeof tls === 'object' ? firstError(SmppTlsSchema, tls) : undefined;
      if (tlsProblem) return `connectors[${i}].tls${tlsProblem}`;
      const problem = firstError(schema, connector);
      if (problem) return `connectors[${i}]${problem}`;
    }
  }
  return firstError(ConfigFileSchema, value)?.replace(/^\./, '') ?? 'invalid';
}

function firstError(schema: TSchema, value: unknown): string | undefined {
  const [error] = Value.Errors(schema, value);
  if (!error) return undefined;
  const path = error.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.');
  // Properties a schema does not allow are reported by Ajv-style validators as "schema is false".
  const allowed = (error.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
  const message =
    error.message === 'schema is false'
      ? 'unknown setting'
      : error.keyword === 'enum' && allowed
        ? `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`
        : error.message;
  return `${path || '.'}: ${message}`.replace(/^\.:/, ':');
}
