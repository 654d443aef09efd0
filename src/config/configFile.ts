import { readFileSync } from 'node:fs';
import { type Static, type TSchema, Type } from 'typebox';
import Value from 'typebox/value';
import YAML from 'yaml';
import {
  compileHttpConnector,
  connectorChannel,
  HttpConnectorConfigError,
  HttpConnectorSchema,
  type ConnectorConfig,
  PROFILES_DIR,
  ProfileError,
  withProfile,
  PROVIDER_TYPES,
  ProviderConnectorSchema,
  type RouteConfig,
  RouteSchema,
  type SmppConnectorConfig,
  SmppConnectorSchema,
  SmppTlsSchema,
  TelegramBotConnectorSchema,
  TelegramGatewayConnectorSchema,
  WhatsappConnectorSchema,
} from '../connectors/index.js';
import { CHANNELS } from '../shared/channels.js';
import { ConfigError } from './config.js';

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
      Type.Array(
        Type.Union([
          SmppConnectorSchema,
          WhatsappConnectorSchema,
          ProviderConnectorSchema,
          TelegramBotConnectorSchema,
          TelegramGatewayConnectorSchema,
          HttpConnectorSchema,
        ]),
        { default: [] },
      ),
    ),
    routes: Type.Optional(Type.Array(RouteSchema, { default: [] })),
    tariffs: Type.Optional(Type.Array(TariffSchema, { default: [] })),
  },
  { additionalProperties: false },
);

export type TariffConfig = Static<typeof TariffSchema>;

export interface ConfigFile {
  readonly connectors: readonly ConnectorConfig[];
  readonly routes: readonly RouteConfig[];
  readonly tariffs: readonly TariffConfig[];
}

export const EMPTY_CONFIG_FILE: ConfigFile = { connectors: [], routes: [], tariffs: [] };

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

/** Declarative connectors that name a profile, completed by it (connectors/: withProfile). */
function withProfiles(data: unknown, source: string, profilesDir: string): unknown {
  const connectors = (data as { connectors?: unknown }).connectors;
  if (!Array.isArray(connectors)) return data;
  return {
    ...(data as object),
    connectors: connectors.map((connector: unknown, i) => {
      try {
        return withProfile(connector, profilesDir);
      } catch (error) {
        if (!(error instanceof ProfileError)) throw error;
        throw new ConfigError('HERALD_CONFIG', `${source}: connectors[${i}].profile: ${error.message}`);
      }
    }),
  };
}

export function parseConfigFile(data: unknown, source = 'config', profilesDir = PROFILES_DIR): ConfigFile {
  data = withProfiles(data, source, profilesDir);
  const withDefaults = Value.Default(ConfigFileSchema, Value.Clone(data)) as Static<typeof ConfigFileSchema>;
  if (!Value.Check(ConfigFileSchema, withDefaults)) {
    throw new ConfigError('HERALD_CONFIG', `${source}: ${describeProblem(withDefaults)}`);
  }
  const connectors = (withDefaults.connectors ?? []) as ConnectorConfig[];
  const routes = (withDefaults.routes ?? []) as RouteConfig[];
  connectors.forEach((connector, i) => {
    if (connector.type === 'smpp') checkSmppConnector(connector as SmppConnectorConfig, `${source}: connectors[${i}]`);
    if (connector.type === 'http') {
      try {
        compileHttpConnector(connector, `connectors[${i}]`);
      } catch (error) {
        if (error instanceof HttpConnectorConfigError)
          throw new ConfigError('HERALD_CONFIG', `${source}: ${error.message}`);
        throw error;
      }
    }
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
      if (connectorChannel(connector) !== route.channel) {
        throw new ConfigError(
          'HERALD_CONFIG',
          `${source}: routes[${i}] is for ${route.channel} but connector ${id} carries ${connectorChannel(connector)}`,
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
  'telegram-bot': TelegramBotConnectorSchema,
  'telegram-gateway': TelegramGatewayConnectorSchema,
  http: HttpConnectorSchema,
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
