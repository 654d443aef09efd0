import { t } from '../shared/i18n/index.js';
import { ApiError } from '../shared/api.js';
import type { RequestBody } from '../shared/apiClient.js';
import { readAmount } from '../shared/amount.js';
import { type Channel, formatNumber } from '../shared/format.js';
import type { Route } from './types.js';

/*
 * The Routes page's form (DESIGN 21) as plain data: the draft the inputs hold, the API body made from it, and where
 * on the form an API refusal belongs. Kept apart from the page so that it reads, and is tested, without a browser.
 */

type RouteBody = RequestBody<'/admin/v1/routes', 'post'>;
type RoutePatch = RequestBody<'/admin/v1/routes/{id}', 'patch'>;

export const STRATEGIES = ['ordered', 'weighted', 'cheapest'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const TRAFFIC_TYPES = ['AUTHORIZE', 'TRANSACT', 'SERVICE', 'PROMO'] as const;
type TrafficType = (typeof TRAFFIC_TYPES)[number];

/** The match lists, typed in as text: values separated by commas or spaces. */
export const MATCH_LISTS = ['accountIds', 'trafficTypes', 'senderNames', 'prefixes', 'countries', 'operators'] as const;
export type MatchList = (typeof MATCH_LISTS)[number];

/** One connector row; `other`: its id is typed, not chosen from the connectors Herald reports. */
export interface ConnectorDraft {
  readonly key: number;
  readonly connectorId: string;
  readonly other: boolean;
  readonly weight: string;
  readonly amount: string;
  readonly currency: string;
}

export interface RouteDraft {
  readonly priority: string;
  readonly channelType: Channel;
  readonly lists: Readonly<Record<MatchList, string>>;
  readonly connectors: readonly ConnectorDraft[];
  readonly strategy: Strategy;
  readonly reroute: boolean;
  readonly errorCodes: string;
  readonly onUndelivered: boolean;
  readonly rerouteMax: string;
  readonly quality: boolean;
  readonly minDeliveryRate: string;
  readonly windowSeconds: string;
}

const NO_LISTS: Record<MatchList, string> = {
  accountIds: '',
  trafficTypes: '',
  senderNames: '',
  prefixes: '',
  countries: '',
  operators: '',
};

export const emptyConnector = (key: number, connectorId = ''): ConnectorDraft => ({
  key,
  connectorId,
  other: false,
  weight: '',
  amount: '',
  currency: '',
});

export const emptyDraft = (connector: ConnectorDraft): RouteDraft => ({
  priority: '0',
  channelType: 'SMS',
  lists: NO_LISTS,
  connectors: [connector],
  strategy: 'ordered',
  reroute: false,
  errorCodes: '',
  onUndelivered: false,
  rerouteMax: '1',
  quality: false,
  minDeliveryRate: '0.9',
  windowSeconds: '3600',
});

/** The route as the form shows it, to edit; `key` numbers its connector rows. */
export function draftOf(route: Route, key: () => number, listed: (connectorId: string) => boolean): RouteDraft {
  const lists = { ...NO_LISTS };
  for (const field of MATCH_LISTS) lists[field] = (route.match[field] ?? []).join(', ');
  return {
    priority: String(route.priority),
    channelType: route.match.channelType as Channel,
    lists,
    connectors: route.connectors.map((c) => ({
      key: key(),
      connectorId: c.connectorId,
      other: !listed(c.connectorId),
      weight: c.weight === undefined ? '' : String(c.weight),
      // In the reader's locale, as its field reads it back (0,125 in Russian).
      amount: c.buyPrice ? formatNumber(c.buyPrice.amount, { useGrouping: false, maximumFractionDigits: 6 }) : '',
      currency: c.buyPrice?.currency ?? '',
    })),
    strategy: route.strategy as Strategy,
    reroute: route.reroute !== null,
    errorCodes: route.reroute?.errorCodes.join(', ') ?? '',
    onUndelivered: route.reroute?.onUndelivered ?? false,
    rerouteMax: String(route.reroute?.max ?? 1),
    quality: route.quality !== null,
    minDeliveryRate: String(route.quality?.minDeliveryRate ?? 0.9),
    windowSeconds: String(route.quality?.windowSeconds ?? 3600),
  };
}

/** Values of a list typed in the form: separated by commas, semicolons or white space. */
export function splitList(text: string): string[] {
  return text.split(/[\s,;]+/).filter(Boolean);
}

/** A refusal of the form before it is sent: `field` is where it is shown (a key of {@link placeOf}). */
export class DraftError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'DraftError';
  }
}

function wholeNumbers(text: string, field: string): number[] {
  return splitList(text).map((value) => {
    if (!/^\d+$/.test(value)) throw new DraftError(field, t('routeForm.notWhole', { field, value }));
    return Number(value);
  });
}

/** A number input's value: the number, or undefined when empty (the API's default then). */
const numberOf = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** A buy price as the reader's language writes it (web/shared/amount.ts), or undefined when empty. */
function buyAmount(text: string, field: string): number | undefined {
  if (text.trim() === '') return undefined;
  const read = readAmount(text, { zero: true, max: 1e9 });
  if ('error' in read) throw new DraftError(field, read.error);
  return read.value;
}

function matchOf(draft: RouteDraft) {
  const countries = splitList(draft.lists.countries).map((c) => c.toUpperCase());
  const trafficTypes = splitList(draft.lists.trafficTypes).map((t) => t.toUpperCase()) as TrafficType[];
  return {
    accountIds: wholeNumbers(draft.lists.accountIds, 'match.accountIds'),
    trafficTypes,
    senderNames: splitList(draft.lists.senderNames),
    prefixes: splitList(draft.lists.prefixes).map((p) => p.replace(/^\+/, '')),
    countries,
    operators: splitList(draft.lists.operators),
  } satisfies Record<MatchList, unknown[]>;
}

/** The route the draft describes, as POST /admin/v1/routes takes it: empty lists and fields left out. */
export function bodyOf(draft: RouteDraft): RouteBody {
  const lists = matchOf(draft);
  const match: RouteBody['match'] = { channelType: draft.channelType };
  for (const field of MATCH_LISTS) if (lists[field].length > 0) Object.assign(match, { [field]: lists[field] });
  const priority = numberOf(draft.priority);
  return {
    ...(priority === undefined ? {} : { priority }),
    match,
    connectors: draft.connectors.map((c, i) => {
      const weight = numberOf(c.weight);
      const amount = buyAmount(c.amount, `connectors.${i}.buyPrice.amount`);
      return {
        connectorId: c.connectorId.trim(),
        ...(weight === undefined ? {} : { weight }),
        ...(amount === undefined && c.currency.trim() === ''
          ? {}
          : { buyPrice: { amount: amount ?? 0, currency: c.currency.trim().toUpperCase() } }),
      };
    }),
    strategy: draft.strategy,
    reroute: draft.reroute
      ? {
          errorCodes: wholeNumbers(draft.errorCodes, 'reroute.errorCodes'),
          onUndelivered: draft.onUndelivered,
          ...(numberOf(draft.rerouteMax) === undefined ? {} : { max: Number(draft.rerouteMax) }),
        }
      : null,
    quality: draft.quality
      ? { minDeliveryRate: Number(draft.minDeliveryRate), windowSeconds: Number(draft.windowSeconds) }
      : null,
  };
}

/** The same route as a PATCH of an existing one: every field given, empty match lists removed (null). */
export function patchOf(draft: RouteDraft): RoutePatch {
  const body = bodyOf(draft);
  const match: NonNullable<RoutePatch['match']> = { channelType: body.match.channelType };
  for (const field of MATCH_LISTS) Object.assign(match, { [field]: body.match[field] ?? null });
  return { ...body, priority: body.priority ?? 0, match };
}

/** Where the form shows an error: one of these, or `connectors.<i>.<connectorId|weight|buyPrice.amount|...>`. */
const FORM_FIELDS = new Set<string>([
  'priority',
  'match.channelType',
  ...MATCH_LISTS.map((f) => `match.${f}`),
  'connectors',
  'strategy',
  'reroute',
  'reroute.errorCodes',
  'reroute.max',
  'quality',
  'quality.minDeliveryRate',
  'quality.windowSeconds',
]);
const CONNECTOR_FIELD = /^connectors\.\d+\.(?:connectorId|weight|buyPrice\.amount|buyPrice\.currency)$/;

/**
 * The place on the form for a field the API named (`connectors.1.buyPrice.currency`, `match.prefixes.0`,
 * `reroute.onUndelivered`): the field itself when the form has it, else the nearest enclosing one.
 */
export function placeOf(field: string): string | undefined {
  const parts = field.split('.');
  for (let n = parts.length; n > 0; n--) {
    const candidate = parts.slice(0, n).join('.');
    if (/^connectors\.\d+\.buyPrice$/.test(candidate)) return `${candidate}.amount`;
    if (FORM_FIELDS.has(candidate) || CONNECTOR_FIELD.test(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The field an API refusal of a route is about, from its message: the routes API's own checks start with the
 * field (`connectors.1.connectorId: no connector x is configured`, `reroute: ...`), schema errors name it
 * (`Invalid connectors.0.buyPrice.currency: "rub" (...)`, `Missing match.channelType`), and an account the match
 * names that does not exist is a 404 `Account 5 not found`.
 */
export function routeFieldOf(error: ApiError): string | undefined {
  const message = error.message;
  if (error.status === 404 && /^Account \d+ not found/.test(message)) return 'match.accountIds';
  const own = /^([A-Za-z]+(?:\.(?:\d+|[A-Za-z]+))*): /.exec(message)?.[1];
  const named = /^(?:Invalid|Missing) ([A-Za-z0-9_.]+)/.exec(message)?.[1];
  const field = own ?? named;
  return field === undefined ? undefined : placeOf(field);
}
