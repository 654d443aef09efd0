// The settings of a declarative HTTP connector (`type: "http"`, DESIGN 19), and their reading at start-up: every
// template and path compiled once, every problem named by its key (`connectors[3].response.id: ...`).
import { type Static, Type } from 'typebox';
import { CHANNELS } from '../../../shared/channels.js';
import { Breaker, Flow } from '../../flowSettings.js';
import { compileJsonPath, type JsonPath, JsonPathError } from './jsonPath.js';
import { compileJson, compileString, type JsonTemplate, type StringTemplate, TemplateError } from './templates.js';

/** Herald's statuses a provider's status may map to; `sent` is no news (the message is sent already). */
export const MAPPED_STATUSES = ['sent', 'delivered', 'undelivered', 'read', 'unsent'] as const;
export type MappedStatus = (typeof MAPPED_STATUSES)[number];

const Path = Type.String({ minLength: 1, description: 'a path into JSON: $.a.b, $["a b"], $.list[0], $.items[*]' });
const Codes = Type.Array(Type.Union([Type.String(), Type.Integer()]), { maxItems: 1000 });

const RequestSchema = Type.Object(
  {
    method: Type.Optional(Type.Enum(['POST', 'PUT', 'GET'] as const, { default: 'POST' })),
    /** Appended to baseUrl; placeholders are percent-encoded. */
    path: Type.String(),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** A JSON value with placeholders in its strings; none for a GET. */
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const HttpConnectorSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    type: Type.Literal('http'),
    channel: Type.Enum(CHANNELS),
    /** A provider described in profiles/ (its request, response and status), completed by these settings. */
    profile: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' })),
    baseUrl: Type.String({ pattern: '^https?://' }),
    /** Values the templates name as {secret:NAME}: never logged, never shown. */
    secrets: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    request: RequestSchema,
    response: Type.Object(
      {
        /** HTTP statuses that may be a success (default 200-299). */
        successStatus: Type.Optional(Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), { minItems: 1 })),
        /** A value the answer must hold to be a success, e.g. {path: "$.status", equals: "OK"}. */
        success: Type.Optional(
          Type.Object(
            { path: Path, equals: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) },
            { additionalProperties: false },
          ),
        ),
        /** Where the provider's id of the message is. */
        id: Path,
        errorCode: Type.Optional(Path),
        /** Error codes that mean "never": the message becomes unsent; others are tried again. */
        permanent: Type.Optional(Codes),
        /** Error codes that mean "later", even with a 4xx. */
        transient: Type.Optional(Codes),
        /** Seconds to wait, from the answer, when the provider says (besides the Retry-After header). */
        retryAfter: Type.Optional(Path),
        /** The provider's price of the message (the buy price) and the balance left, where it gives them. */
        price: Type.Optional(Path),
        balance: Type.Optional(Path),
      },
      { additionalProperties: false },
    ),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 15 })),
    ...Flow,
    ...Breaker,
    /** Herald's address as the provider reaches it: `{statusUrl}` is `{publicUrl}/webhooks/http/{id}`. */
    publicUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
    status: Type.Object(
      {
        webhook: Type.Optional(
          Type.Object(
            {
              /** How a status report proves it is the provider's. */
              signature: Type.Union([
                Type.Object({ kind: Type.Literal('none') }, { additionalProperties: false }),
                Type.Object(
                  {
                    kind: Type.Literal('hmac-sha256'),
                    header: Type.String({ minLength: 1 }),
                    /** The name of the secret that keys the HMAC of the raw body. */
                    secret: Type.String({ minLength: 1 }),
                    encoding: Type.Optional(Type.Enum(['hex', 'base64'] as const, { default: 'hex' })),
                    prefix: Type.Optional(Type.String({ description: 'e.g. "sha256=" before the digest' })),
                  },
                  { additionalProperties: false },
                ),
              ]),
              /** Where the reports of one request are ("$" for one report a request). */
              items: Type.Optional(Path),
              id: Path,
              status: Path,
              errorCode: Type.Optional(Path),
            },
            { additionalProperties: false },
          ),
        ),
        poll: Type.Optional(
          Type.Object(
            { request: RequestSchema, intervalSeconds: Type.Number({ minimum: 1, maximum: 86_400 }), items: Path },
            { additionalProperties: false },
          ),
        ),
        /** The provider's statuses and what each is in Herald; a status not listed is noted and ignored. */
        map: Type.Record(Type.String(), Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type HttpConnectorSettings = Static<typeof HttpConnectorSchema>;

/** A request template read: its path, headers and body. */
export interface CompiledRequest {
  readonly path: StringTemplate;
  readonly headers: readonly (readonly [string, StringTemplate])[];
  readonly body: JsonTemplate | undefined;
}

/** A declarative connector's settings read: templates and paths compiled, secrets kept apart. */
export interface CompiledHttpConnector {
  readonly settings: HttpConnectorSettings;
  readonly request: {
    readonly path: StringTemplate;
    readonly headers: readonly (readonly [string, StringTemplate])[];
    readonly body: JsonTemplate | undefined;
  };
  readonly response: {
    readonly id: JsonPath;
    readonly errorCode: JsonPath | undefined;
    readonly success: { readonly path: JsonPath; readonly equals: string | number | boolean } | undefined;
    readonly retryAfter: JsonPath | undefined;
    readonly price: JsonPath | undefined;
    readonly balance: JsonPath | undefined;
  };
  readonly statusMap: ReadonlyMap<string, MappedStatus>;
  /** The status webhook's paths, read. */
  readonly webhook:
    | {
        readonly items: JsonPath | undefined;
        readonly id: JsonPath;
        readonly status: JsonPath;
        readonly errorCode: JsonPath | undefined;
      }
    | undefined;
}

/** A problem of a declarative connector's settings, naming its key. */
export class HttpConnectorConfigError extends Error {}

/**
 * Reads a declarative connector's settings at start-up (`place` is where they are, e.g. `connectors[3]`), or throws
 * HttpConnectorConfigError naming the key: a template's unknown placeholder or missing secret, a path outside the
 * syntax, a status mapped to no status of Herald's, a webhook signed with a secret the connector lacks, no way to
 * learn statuses at all.
 */
export function compileHttpConnector(settings: HttpConnectorSettings, place: string): CompiledHttpConnector {
  const secrets = settings.secrets ?? {};
  const at = <T>(key: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof JsonPathError) throw new HttpConnectorConfigError(`${place}.${key}: ${error.message}`);
      if (error instanceof TemplateError) throw new HttpConnectorConfigError(error.message);
      throw error;
    }
  };
  const path = (key: string, source: string | undefined): JsonPath | undefined =>
    source === undefined ? undefined : at(key, () => compileJsonPath(source));

  type RequestSettings = HttpConnectorSettings['request'];
  const compileRequest = (r: RequestSettings, key: string): CompiledRequest => {
    const compiled = {
      path: at(`${key}.path`, () => compileString(r.path, `${place}.${key}.path`, secrets)),
      headers: Object.entries(r.headers ?? {}).map(
        ([name, value]) =>
          [
            name,
            at(`${key}.headers.${name}`, () => compileString(value, `${place}.${key}.headers.${name}`, secrets)),
          ] as const,
      ),
      body:
        r.body === undefined
          ? undefined
          : at(`${key}.body`, () => compileJson(r.body, `${place}.${key}.body`, secrets)),
    };
    if (r.method === 'GET' && compiled.body)
      throw new HttpConnectorConfigError(`${place}.${key}.body: a GET request has no body`);
    return compiled;
  };
  const request = compileRequest(settings.request, 'request');

  const response = settings.response;
  const compiledResponse = {
    id: path('response.id', response.id)!,
    errorCode: path('response.errorCode', response.errorCode),
    success: response.success && {
      path: path('response.success.path', response.success.path)!,
      equals: response.success.equals,
    },
    retryAfter: path('response.retryAfter', response.retryAfter),
    price: path('response.price', response.price),
    balance: path('response.balance', response.balance),
  };
  const overlap = (response.permanent ?? []).filter((c) => (response.transient ?? []).map(String).includes(String(c)));
  if (overlap.length > 0)
    throw new HttpConnectorConfigError(`${place}.response: ${overlap.join(', ')} both permanent and transient`);

  const status = settings.status;
  if (!status.webhook && !status.poll)
    throw new HttpConnectorConfigError(`${place}.status: a webhook or a poll is needed to learn statuses`);
  const webhook = status.webhook && {
    items: path('status.webhook.items', status.webhook.items),
    id: path('status.webhook.id', status.webhook.id)!,
    status: path('status.webhook.status', status.webhook.status)!,
    errorCode: path('status.webhook.errorCode', status.webhook.errorCode),
  };
  if (status.webhook) {
    const signature = status.webhook.signature;
    if (signature.kind === 'hmac-sha256' && !Object.hasOwn(secrets, signature.secret))
      throw new HttpConnectorConfigError(
        `${place}.status.webhook.signature.secret: ${signature.secret} names no key of the connector's secrets`,
      );
  }
  if (status.poll) {
    path('status.poll.items', status.poll.items);
    compileRequest(status.poll.request, 'status.poll.request');
    // Refused rather than taken and never done: its messages would learn nothing until their lifetimes end.
    throw new HttpConnectorConfigError(`${place}.status.poll: polling is not built yet; statuses come by webhook`);
  }
  const statusMap = new Map<string, MappedStatus>();
  for (const [theirs, ours] of Object.entries(status.map)) {
    if (!(MAPPED_STATUSES as readonly string[]).includes(ours))
      throw new HttpConnectorConfigError(
        `${place}.status.map.${theirs}: "${ours}" is not a status of Herald's (${MAPPED_STATUSES.join(', ')})`,
      );
    statusMap.set(theirs, ours as MappedStatus);
  }
  if (statusMap.size === 0) throw new HttpConnectorConfigError(`${place}.status.map: no status is mapped`);
  return { settings, request, response: compiledResponse, statusMap, webhook };
}
