/**
 * The one catalogue of Herald's API errors. Every error body is `{"error": {"code", "msg"}}`; `code` is the HTTP
 * status x 10 + n, `msg` a template whose `{placeholders}` are filled from the error's parameters. Item codes
 * (4020, 4031, 4221) appear on single items of a send response rather than as an HTTP error; 7401, an item of a
 * dispatch's messages, follows the real service's numbering instead.
 * docs/errors.md is generated from this table (`npm run docs:errors`) and a test keeps the two equal.
 */
export const ERRORS = {
  badJson: { status: 400, code: 4000, msg: 'Malformed JSON body: {reason}' },
  badRequest: { status: 400, code: 4001, msg: '{reason}' },
  notAuthenticated: { status: 401, code: 4010, msg: 'Not Authenticated' },
  badCredentials: { status: 401, code: 4012, msg: 'Bad credentials' },
  insufficientFunds: { status: 402, code: 4020, msg: 'Insufficient funds' },
  // An item of a dispatch's messages that cannot be a message (DESIGN 15): an item code only, never an HTTP error.
  dispatchItemInvalid: { status: 422, code: 7401, msg: '{reason}' },
  noTariff: { status: 402, code: 4021, msg: 'No tariff for ({channelType}, {destination})' },
  // Guard items (DESIGN 20): refused at generation, never charged.
  dailySpendLimit: { status: 402, code: 4022, msg: 'Daily spend limit reached' },
  accessDenied: { status: 403, code: 4030, msg: 'Access Denied' },
  // A client's settings may only narrow the operator's (DESIGN 20).
  settingLoosened: { status: 403, code: 4030, msg: 'Only the operator may loosen {setting}' },
  noConsent: { status: 403, code: 4034, msg: 'No consent: {number}' },
  countryNotAllowed: { status: 403, code: 4035, msg: 'Destination country not allowed: {country}' },
  channelNotEnabled: { status: 403, code: 4031, msg: 'Channel is not enabled: {channelType}' },
  accountBlocked: { status: 403, code: 4032, msg: 'Account is blocked' },
  // A state-changing request signed in by a web session cookie without its CSRF token (http/sessionCookie.ts).
  csrfRefused: {
    status: 403,
    code: 4037,
    msg: 'Missing or wrong X-CSRF-Token header: a request signed in by the session cookie must carry its CSRF token',
  },
  // An item code of the send answer (DESIGN 20): the destination is on the account's or the operator's stop list.
  stopListed: { status: 403, code: 4032, msg: 'Destination is on the stop list' },
  notFound: { status: 404, code: 4040, msg: '{what} not found' },
  // An unknown route is 4040 like any other missing thing, whatever the method.
  routeNotFound: { status: 404, code: 4040, msg: 'Route not found: {method} {url}' },
  methodNotAllowed: { status: 405, code: 4050, msg: 'Method not allowed: {method}' },
  requestTimeout: { status: 408, code: 4080, msg: 'Request timeout: the request did not arrive in time' },
  idempotencyConflict: {
    status: 409,
    code: 4090,
    msg: 'Idempotency-Key {key} was used with a different request body',
  },
  // A batch stored in slices whose first attempt still holds its key (idempotency/idempotency.ts).
  idempotencyInProgress: {
    status: 409,
    code: 4090,
    msg: 'A request with Idempotency-Key {key} is still in progress: retry later',
  },
  conflict: { status: 409, code: 4091, msg: '{reason}' },
  loginTaken: { status: 409, code: 4092, msg: 'Login is already taken: {login}' },
  keyInUse: { status: 409, code: 4093, msg: 'This key authenticates the request; revoke it with another key' },
  // Per-account ceilings on settings (docs/security.md, Limits): delete one to add another.
  // One answer for every per-account ceiling on what an account stores (rules, centers, templates).
  perAccountLimit: { status: 409, code: 4094, msg: 'Too many {what}: at most {limit} per account' },
  // Deleting it would leave the keys tagging messages with a center that no longer exists.
  centerHasKeys: {
    status: 409,
    code: 4095,
    msg: 'Traffic center {id} has live API keys bound to it: {keys}; revoke them first',
  },
  bodyTooLarge: { status: 413, code: 4130, msg: 'Request body is larger than {limit} bytes' },
  bodyTooManyValues: { status: 413, code: 4131, msg: 'Request body holds more than {limit} JSON values' },
  urlTooLong: { status: 414, code: 4140, msg: 'URL path segment is longer than {limit} characters' },
  unsupportedMediaType: { status: 415, code: 4150, msg: 'Content-Type must be application/json' },
  // POST /admin/v1/mnp/import takes the base's file as it is (docs/mnp.md).
  csvMediaType: { status: 415, code: 4150, msg: 'Content-Type must be text/csv' },
  expectationFailed: { status: 417, code: 4170, msg: 'Expect: 100-continue is the only expectation supported' },

  tooManyMessages: { status: 422, code: 4220, msg: 'Max count of messages is 1000' },
  // A CSV import of a stop list (DESIGN 20) over its row limit: nothing is added.
  tooManyRows: { status: 422, code: 4220, msg: 'At most {limit} rows in one import' },
  emptyBatch: { status: 422, code: 4220, msg: 'Min count of messages is 1' },
  notAnArray: { status: 422, code: 4220, msg: 'Request body must be a JSON array of message objects' },
  notAnObject: { status: 422, code: 4220, msg: 'Message must be a JSON object' },
  missingField: { status: 422, code: 4220, msg: 'Missing {field}' },
  invalidField: { status: 422, code: 4220, msg: 'Invalid {field}: {value}' },
  fieldNotAccepted: { status: 422, code: 4220, msg: 'Invalid {field}' },
  // A list over its schema's maxItems: the list itself is not echoed, it may be megabytes long.
  tooManyItems: { status: 422, code: 4220, msg: 'Invalid {field}: at most {limit} items' },
  // A password, token or secret is never echoed, not even a refused one (it may be a real one, mistyped).
  invalidSecretField: { status: 422, code: 4220, msg: 'Invalid {field} ({reason}); its value is not shown' },
  // Ceilings on free-form strings: the value is not echoed, it may be kilobytes long.
  overCeiling: { status: 422, code: 4220, msg: 'Invalid {field}' },
  sendTimeTooEarly: { status: 422, code: 4220, msg: 'Local send time is less than minimal {minLocalSendTime}' },
  // The spec words the upper bound "greater than minimal"; clients match on it, so it is kept verbatim.
  sendTimeTooLate: { status: 422, code: 4220, msg: 'Local send time is greater than minimal {maxLocalSendTime}' },
  completionTimeTooEarly: {
    status: 422,
    code: 4220,
    msg: 'Local completion time is less than minimal {minLocalCompletionTime}',
  },
  completionTimeTooLate: {
    status: 422,
    code: 4220,
    msg: 'Local completion time is greater than maximal {maxLocalCompletionTime}',
  },
  noActiveSenderName: { status: 422, code: 4220, msg: 'No active sender name: ({channelType}, {senderName})' },
  invalidMsisdn: { status: 422, code: 4220, msg: 'Invalid msisdn' },
  blankContent: { status: 422, code: 4220, msg: 'Blank content' },
  invalidContent: { status: 422, code: 4220, msg: 'Invalid content' },
  invalidContentDetail: { status: 422, code: 4220, msg: 'Invalid content: {reason}' },
  // A dispatch's text whose substitutions make it longer than any valid one of its channel: never built.
  substitutedTooLong: { status: 422, code: 4220, msg: 'Content after substitution is longer than {limit}' },
  invalidTags: { status: 422, code: 4220, msg: 'Invalid tags: {tags}' },
  invalidTtl: { status: 422, code: 4220, msg: 'Invalid TTL {ttl}' },
  invalidCallbackUrl: { status: 422, code: 4220, msg: 'Invalid callbackUrl: {reason}' },
  invalidIdempotencyKey: {
    status: 422,
    code: 4220,
    msg: 'Invalid Idempotency-Key: 1 to 255 printable ASCII characters expected',
  },
  // A request well formed but not acceptable as a whole, where no entry above names the reason.
  unprocessable: { status: 422, code: 4220, msg: '{reason}' },
  noActiveTemplate: { status: 422, code: 4221, msg: 'No active template for content' },
  invalidHours: { status: 422, code: 4222, msg: 'Invalid hours: {hours}' },
  invalidDays: { status: 422, code: 4223, msg: 'Invalid days: {days}' },
  // Per-account caps on stored things (HERALD_TEMPLATES_PER_ACCOUNT): delete some to make room.
  tooManyRequests: { status: 429, code: 4290, msg: 'Too many requests; retry after {retryAfter} s' },
  // An item code of the send response: the account used its new callback URLs of the day
  // (HERALD_CALLBACK_URLS_PER_DAY).
  callbackUrlLimit: { status: 429, code: 4291, msg: 'Too many new callback URLs today: at most {limit} a day' },
  // The flood filter (DESIGN 20): an item of a send, free.
  destinationFlood: { status: 429, code: 4291, msg: 'Too many messages to this destination' },
  headersTooLarge: { status: 431, code: 4310, msg: 'Request headers are larger than {limit} bytes' },

  internal: { status: 500, code: 5000, msg: 'Internal error' },
  shortenerUnavailable: { status: 503, code: 5030, msg: 'Url shortener is unavailable' },
  databaseUnavailable: { status: 503, code: 5031, msg: 'Service temporarily unavailable' },
  adminApiDisabled: { status: 503, code: 5032, msg: 'Operator API is disabled: HERALD_ADMIN_TOKEN is not set' },
  notReady: { status: 503, code: 5033, msg: 'Not ready: {reason}' },
  webNotBuilt: { status: 503, code: 5034, msg: 'Web pages are not built: run npm run build' },
  // More sign-ins (or password changes) at once than HERALD_PASSWORD_HASH_CONCURRENCY and _QUEUE take.
  passwordHashBusy: { status: 503, code: 5035, msg: 'Too many sign-ins in progress; retry after {retryAfter} s' },
} as const satisfies Record<string, ErrorDefinition>;

export interface ErrorDefinition {
  readonly status: number;
  readonly code: number;
  readonly msg: string;
}

export type ErrorName = keyof typeof ERRORS;

/** Extracts the `{placeholder}` names of a message template as a type. */
type Placeholders<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
export type ErrorParams<N extends ErrorName> = Record<Placeholders<(typeof ERRORS)[N]['msg']>, string | number>;

/**
 * A domain error that knows its catalogue entry and parameters, and nothing of HTTP. The HTTP error handler
 * renders it; `extra` fields (such as `index`) are added to the error body beside `code` and `msg`.
 */
export class HeraldError extends Error {
  readonly status: number;
  readonly code: number;
  readonly extra: Record<string, unknown> = {};

  constructor(
    readonly errorName: ErrorName,
    readonly params: Readonly<Record<string, string | number>> = {},
  ) {
    const definition: ErrorDefinition = ERRORS[errorName];
    super(fillTemplate(definition.msg, params));
    this.name = 'HeraldError';
    this.status = definition.status;
    this.code = definition.code;
  }

  /** Adds fields to the error body; returns this for chaining at the throw site. */
  with(extra: Record<string, unknown>): this {
    Object.assign(this.extra, extra);
    return this;
  }

  /** For a client error the catalogue does not name (raised by Fastify): its HTTP status and status x 10. */
  withStatus(status: number): this {
    (this as { status: number }).status = status;
    (this as { code: number }).code = status * 10;
    return this;
  }

  toBody(): { error: { code: number; msg: string } & Record<string, unknown> } {
    return { error: { code: this.code, msg: this.message, ...this.extra } };
  }
}

/** Builds a typed error: `herald('invalidTtl', { ttl: 10 })`. */
export function herald<N extends ErrorName>(
  name: N,
  ...params: keyof ErrorParams<N> extends never ? [] : [ErrorParams<N>]
): HeraldError {
  return new HeraldError(name, params[0]);
}

function fillTemplate(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in params ? String(params[key]) : whole));
}

/**
 * Formats a value for an `Invalid <field>: <value>` message: JSON, so that strings, arrays and null are unambiguous.
 */
export function showValue(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) return String(value);
  return json.length > 200 ? `${json.slice(0, 200)}...` : json;
}
