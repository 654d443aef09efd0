// The settings of a declarative HTTP connector (`type: "http"`, DESIGN 19), and their reading at start-up: every
// template and path compiled once, every problem named by its key (`connectors[3].response.id: ...`).
import { type Static, Type } from 'typebox';
import { CHANNELS } from '../../../shared/channels.js';
import { Breaker, CarrierBlocklist, Flow } from '../../flowSettings.js';
import { compileJsonPath, type JsonPath, JsonPathError } from './jsonPath.js';
import {
  compileJson,
  compileString,
  type JsonTemplate,
  placeholdersOf,
  type StringTemplate,
  TemplateError,
  type TemplateScope,
} from './templates.js';

/** Herald's statuses a provider's status may map to; `sent` is no news (the message is sent already). */
export const MAPPED_STATUSES = ['sent', 'delivered', 'undelivered', 'read', 'unsent'] as const;
export type MappedStatus = (typeof MAPPED_STATUSES)[number];

const Path = Type.String({ minLength: 1, description: 'a path into JSON: $.a.b, $["a b"], $.list[0], $.items[*]' });
/** One path, or several tried in order: the first that finds a value wins. */
const Paths = Type.Union([Path, Type.Array(Path, { minItems: 1, maxItems: 8 })]);
const Codes = Type.Array(Type.Union([Type.String(), Type.Integer()]), { maxItems: 1000 });

/** Where a status report's parts are: in each item (at `items`, or the whole answer), its id, status, code, price. */
const ReportPaths = {
  /** Where the reports of one request or answer are ("$", the default, for one report). */
  items: Type.Optional(Path),
  id: Path,
  status: Path,
  errorCode: Type.Optional(Path),
  /** The provider's price of the message, where its report gives one (the buy price). */
  price: Type.Optional(Path),
};

const RequestSchema = Type.Object(
  {
    method: Type.Optional(Type.Enum(['POST', 'PUT', 'GET'] as const, { default: 'POST' })),
    /** Appended to baseUrl; placeholders are percent-encoded. */
    path: Type.String(),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** A JSON value with placeholders in its strings; none for a GET. */
    body: Type.Optional(Type.Unknown()),
    /** How the body is written: JSON, or a form (application/x-www-form-urlencoded, arrays as repeated keys). */
    encoding: Type.Optional(Type.Enum(['json', 'form'] as const, { default: 'json' })),
    /** HTTP Basic authentication, its user and password templates (usually secrets). */
    auth: Type.Optional(
      Type.Object(
        { basic: Type.Object({ user: Type.String(), password: Type.String() }, { additionalProperties: false }) },
        { additionalProperties: false },
      ),
    ),
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
    /** Values the templates name as {var:NAME}: the operator's settings that are not secret (a template id). */
    vars: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    /** Tables the templates name as {x|map:NAME}: Herald's value -> the provider's. */
    valueMaps: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
        Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
      ),
    ),
    /**
     * The provider's error codes that are not numbers ("BAD_NUMBER", "USER_BLOCKED"), as the numbers Herald reports
     * in errorCode; a code neither numeric nor listed is reported as the answer's HTTP status.
     */
    errorCodes: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: 2_147_483_647 }))),
    request: RequestSchema,
    /** Several messages in one request: each one's `item` is appended to the array at `into` of the body. */
    batch: Type.Optional(
      Type.Object(
        { size: Type.Integer({ minimum: 1, maximum: 10_000 }), into: Path, item: Type.Unknown() },
        { additionalProperties: false },
      ),
    ),
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
        /** A batch's per-message results, in the order of its messages: `id`, `errorCode`, `price` are read in each. */
        results: Type.Optional(Path),
        /** Where the provider's id of the message is. */
        id: Path,
        /** Where the error code is; several paths are tried in order (a request's code, a message's code). */
        errorCode: Type.Optional(Paths),
        /** Where the provider says what went wrong in words (shown as the connector's last error). */
        errorText: Type.Optional(Paths),
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
    ...CarrierBlocklist,
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
                    /** Twilio's X-Twilio-Signature: HMAC-SHA1 of the URL called and the sorted form parameters. */
                    kind: Type.Literal('twilio'),
                    secret: Type.String({ minLength: 1 }),
                  },
                  { additionalProperties: false },
                ),
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
              /** How the provider writes its reports: JSON, or a form (application/x-www-form-urlencoded). */
              encoding: Type.Optional(Type.Enum(['json', 'form'] as const, { default: 'json' })),
              ...ReportPaths,
            },
            { additionalProperties: false },
          ),
        ),
        poll: Type.Optional(
          Type.Object(
            {
              /** The request: {carrierId} (one message a request), or {carrierIds} (up to `batch`). */
              request: RequestSchema,
              intervalSeconds: Type.Number({ minimum: 1, maximum: 86_400 }),
              batch: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1 })),
              ...ReportPaths,
            },
            { additionalProperties: false },
          ),
        ),
        /**
         * true: the provider reports no status at all (Unibell's flash calls): an accepted message stays sent until
         * its lifetime ends (undelivered 9005). Said outright, so that a forgotten webhook is still refused.
         */
        none: Type.Optional(Type.Literal(true)),
        /** The provider's statuses and what each is in Herald; a status not listed is noted and ignored. */
        map: Type.Optional(Type.Record(Type.String(), Type.String())),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type HttpConnectorSettings = Static<typeof HttpConnectorSchema>;

/** A request template read: its path, headers, body and how the body is written. */
export interface CompiledRequest {
  readonly method: 'POST' | 'PUT' | 'GET';
  readonly path: StringTemplate;
  readonly headers: readonly (readonly [string, StringTemplate])[];
  readonly body: JsonTemplate | undefined;
  readonly encoding: 'json' | 'form';
  readonly basic: { readonly user: StringTemplate; readonly password: StringTemplate } | undefined;
}

/** Where a report's parts are, read. */
export interface CompiledReports {
  readonly items: JsonPath;
  readonly id: JsonPath;
  readonly status: JsonPath;
  readonly errorCode: JsonPath | undefined;
  readonly price: JsonPath | undefined;
}

/** A declarative connector's settings read: templates and paths compiled, secrets kept apart. */
export interface CompiledHttpConnector {
  readonly settings: HttpConnectorSettings;
  readonly request: CompiledRequest;
  readonly batch: { readonly size: number; readonly into: string; readonly item: JsonTemplate } | undefined;
  readonly response: {
    readonly results: JsonPath | undefined;
    readonly id: JsonPath;
    readonly errorCode: readonly JsonPath[];
    readonly errorText: readonly JsonPath[];
    readonly success: { readonly path: JsonPath; readonly equals: string | number | boolean } | undefined;
    readonly retryAfter: JsonPath | undefined;
    readonly price: JsonPath | undefined;
    readonly balance: JsonPath | undefined;
  };
  readonly statusMap: ReadonlyMap<string, MappedStatus>;
  /** The status webhook's paths, read. */
  readonly webhook: CompiledReports | undefined;
  /** The status poll: its request, how many ids one carries, how often, and where its answer's reports are. */
  readonly poll:
    | (CompiledReports & { readonly request: CompiledRequest; readonly batch: number; readonly everyMs: number })
    | undefined;
}

/** A problem of a declarative connector's settings, naming its key. */
export class HttpConnectorConfigError extends Error {}

const ROOT = '$';

/**
 * Reads a declarative connector's settings at start-up (`place` is where they are, e.g. `connectors[3]`), or throws
 * HttpConnectorConfigError naming the key: a template's unknown placeholder or filter, missing secret or var, a path
 * outside the syntax, a status mapped to no status of Herald's, a webhook signed with a secret the connector lacks,
 * a batch without its results, no way to learn statuses at all.
 */
export function compileHttpConnector(settings: HttpConnectorSettings, place: string): CompiledHttpConnector {
  // Read once: the configuration's check, the webhook routes and the connector share the same settings object.
  let compiled = COMPILED.get(settings);
  if (!compiled) COMPILED.set(settings, (compiled = compile(settings, place)));
  return compiled;
}

const COMPILED = new WeakMap<HttpConnectorSettings, CompiledHttpConnector>();

function compile(settings: HttpConnectorSettings, place: string): CompiledHttpConnector {
  const secrets = settings.secrets ?? {};
  const scope: TemplateScope = { secrets, vars: settings.vars ?? {}, valueMaps: settings.valueMaps ?? {} };
  const fail = (key: string, what: string): never => {
    throw new HttpConnectorConfigError(`${place}.${key}: ${what}`);
  };
  const at = <T>(key: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof JsonPathError) return fail(key, error.message);
      if (error instanceof TemplateError) throw new HttpConnectorConfigError(error.message);
      throw error;
    }
  };
  const path = (key: string, source: string | undefined): JsonPath | undefined =>
    source === undefined ? undefined : at(key, () => compileJsonPath(source));

  const paths = (key: string, source: string | readonly string[] | undefined): JsonPath[] =>
    (typeof source === 'string' ? [source] : (source ?? [])).map((one, i) =>
      path(typeof source === 'string' ? key : `${key}[${i}]`, one)!,
    );

  type RequestSettings = HttpConnectorSettings['request'];
  const compileRequest = (r: RequestSettings, key: string, requestScope: TemplateScope): CompiledRequest => {
    const where = `${place}.${key}`;
    const method = r.method ?? 'POST';
    const encoding = r.encoding ?? 'json';
    if (method === 'GET' && r.body !== undefined) fail(`${key}.body`, 'a GET request has no body');
    if (encoding === 'form' && r.body !== undefined && !isObject(r.body))
      fail(`${key}.body`, 'a form is an object of fields');
    return {
      method,
      encoding,
      path: compileString(r.path, `${where}.path`, requestScope),
      headers: Object.entries(r.headers ?? {}).map(
        ([name, value]) => [name, compileString(value, `${where}.headers.${name}`, requestScope)] as const,
      ),
      body: r.body === undefined ? undefined : compileJson(r.body, `${where}.body`, requestScope),
      basic: r.auth && {
        user: compileString(r.auth.basic.user, `${where}.auth.basic.user`, requestScope),
        password: compileString(r.auth.basic.password, `${where}.auth.basic.password`, requestScope),
      },
    };
  };
  const request = at('request', () => compileRequest(settings.request, 'request', scope));

  const batch = settings.batch && {
    size: settings.batch.size,
    into: at('batch.into', () => batchTarget(settings.batch!.into)),
    item: at('batch.item', () => compileJson(settings.batch!.item, `${place}.batch.item`, scope)),
  };
  if (batch) {
    if (request.method === 'GET' || !isObject(settings.request.body))
      fail('request.body', 'a batch needs an object body to put its messages in');
    if (!settings.response.results) fail('response.results', "a batch needs where its messages' results are");
  } else if (settings.response.results) fail('response.results', 'results are read in the answer to a batch only');

  const response = settings.response;
  const compiledResponse = {
    results: path('response.results', response.results),
    id: path('response.id', response.id)!,
    errorCode: paths('response.errorCode', response.errorCode),
    errorText: paths('response.errorText', response.errorText),
    success: response.success && {
      path: path('response.success.path', response.success.path)!,
      equals: response.success.equals,
    },
    retryAfter: path('response.retryAfter', response.retryAfter),
    price: path('response.price', response.price),
    balance: path('response.balance', response.balance),
  };
  const overlap = (response.permanent ?? []).filter((c) => (response.transient ?? []).map(String).includes(String(c)));
  if (overlap.length > 0) fail('response', `${overlap.join(', ')} both permanent and transient`);

  type Reports = Pick<
    NonNullable<HttpConnectorSettings['status']['webhook']>,
    'items' | 'id' | 'status' | 'errorCode' | 'price'
  >;
  const reports = (key: string, r: Reports): CompiledReports => ({
    items: path(`${key}.items`, r.items ?? ROOT)!,
    id: path(`${key}.id`, r.id)!,
    status: path(`${key}.status`, r.status)!,
    errorCode: path(`${key}.errorCode`, r.errorCode),
    price: path(`${key}.price`, r.price),
  });

  const status = settings.status;
  if (status.none && (status.webhook || status.poll || status.map))
    fail('status.none', 'a provider that reports no status has no webhook, poll or map');
  if (!status.none && !status.webhook && !status.poll)
    fail('status', 'a webhook or a poll is needed to learn statuses (or none: true, said outright)');
  const webhook = status.webhook && reports('status.webhook', status.webhook);
  const signature = status.webhook?.signature;
  if (signature && signature.kind !== 'none' && !Object.hasOwn(secrets, signature.secret))
    fail('status.webhook.signature.secret', `${signature.secret} names no key of the connector's secrets`);
  const poll =
    status.poll &&
    Object.assign(reports('status.poll', status.poll), {
      request: at('status.poll.request', () =>
        compileRequest(status.poll!.request, 'status.poll.request', Object.assign({}, scope, { poll: true })),
      ),
      batch: status.poll.batch ?? 1,
      everyMs: status.poll.intervalSeconds * 1000,
    });
  if (poll) {
    const used = new Set(
      [poll.request.path, ...poll.request.headers.map(([, t]) => t)].flatMap((t) => [...placeholdersOf(t)]),
    );
    if (poll.request.body) placeholdersOf(poll.request.body).forEach((p) => used.add(p));
    if (!used.has('carrierId') && !used.has('carrierIds'))
      fail('status.poll.request', 'names no {carrierId} or {carrierIds}: the provider could not tell which messages');
    if (poll.batch > 1 && used.has('carrierId') && !used.has('carrierIds'))
      fail('status.poll.batch', 'more than one id a request needs {carrierIds} in the request');
  }
  const statusMap = new Map<string, MappedStatus>();
  for (const [theirs, ours] of Object.entries(status.map ?? {})) {
    if (!(MAPPED_STATUSES as readonly string[]).includes(ours))
      fail(`status.map.${theirs}`, `"${ours}" is not a status of Herald's (${MAPPED_STATUSES.join(', ')})`);
    statusMap.set(theirs, ours as MappedStatus);
  }
  if (statusMap.size === 0 && !status.none) fail('status.map', 'no status is mapped');
  return { settings, request, batch, response: compiledResponse, statusMap, webhook, poll };
}

/** The member of the request body a batch's items go into: `$.name` (one level, so that it is plain to see). */
function batchTarget(source: string): string {
  const compiled = compileJsonPath(source);
  const [only] = compiled.segments;
  if (compiled.segments.length !== 1 || only?.kind !== 'name')
    throw new JsonPathError(`${JSON.stringify(source)}: a batch goes into a member of the body, as $.messages`);
  return only.name;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
