import type { Channel } from '../shared/channels.js';
import type { TrafficType } from '../shared/trafficTypes.js';

/*
 * A route of DESIGN 21 as the code sees it: what the API takes and answers, what routeSql.ts stores, what the route
 * table compiles. Absent match fields are null: they match anything.
 */

export const ROUTE_STRATEGIES = ['ordered', 'weighted', 'cheapest'] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

/** Which messages a route takes: each field given narrows it; a list matches when the message's value is in it. */
export interface RouteMatch {
  readonly channelType: Channel;
  readonly accountIds: readonly number[] | null;
  readonly trafficTypes: readonly TrafficType[] | null;
  readonly senderNames: readonly string[] | null;
  /** Destination prefixes (E.164 digits): the longest one that matches counts for specificity. */
  readonly prefixes: readonly string[] | null;
  /** ISO 3166 alpha-2, upper case. */
  readonly countries: readonly string[] | null;
  /** Operators as `brand` names them (the numbering plan's, or the portability base's for a ported number). */
  readonly operators: readonly string[] | null;
}

/** A money amount as decimal text (never a float on its way to the database) and its currency. */
export interface Money {
  readonly amount: string;
  readonly currency: string;
}

export interface RouteConnector {
  readonly connectorId: string;
  /** `weighted`: its share of the traffic against the others' (1 when not given). */
  readonly weight: number | null;
  /** What the operator pays the carrier per part sent. */
  readonly buyPrice: Money | null;
}

export interface Reroute {
  /**
   * Error codes that send the message on through the route's next connector: of a refusal at submission (the
   * submitter reroutes at once) or of an undelivered or unsent receipt (the receipt's statement puts it back in the
   * queue, messages/transitionSql.ts).
   */
  readonly errorCodes: readonly number[];
  /** Any `undelivered` receipt does too. */
  readonly onUndelivered: boolean;
  /** How many times one message may go again (1-3). */
  readonly max: number;
}

export interface Quality {
  /** 0-1: a connector whose delivered share of final receipts over the window is lower is passed over. */
  readonly minDeliveryRate: number;
  readonly windowSeconds: number;
}

/** A route as stored, without its id and times. */
export interface RouteFields {
  readonly priority: number;
  readonly match: RouteMatch;
  readonly connectors: readonly RouteConnector[];
  readonly strategy: RouteStrategy;
  readonly reroute: Reroute | null;
  readonly quality: Quality | null;
}

export interface Route extends RouteFields {
  readonly id: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What a message brings to the route table. */
export interface RouteQuery {
  readonly accountId: number;
  readonly channel: Channel;
  readonly destination: string;
  readonly trafficType: TrafficType;
  readonly senderName: string;
  readonly country: string | null;
  /** The number's operator (`brand`), when known. */
  readonly operator: string | null;
}

/** The match fields a route may give beside its channel: the more it gives, the more specific it is. */
export const MATCH_FIELDS = [
  'accountIds',
  'trafficTypes',
  'senderNames',
  'prefixes',
  'countries',
  'operators',
] as const;

/** How many match fields a route gives (its channel aside). */
export const specificityOf = (match: RouteMatch): number => MATCH_FIELDS.filter((f) => match[f] !== null).length;

/**
 * A match with every field it does not give as null: the one shape routes have in code, whatever wrote them (the API
 * with the fields given, HERALD_CONFIG's routes, a row written by hand whose JSON leaves fields out).
 */
export function matchOf(given: Partial<RouteMatch> & Pick<RouteMatch, 'channelType'>): RouteMatch {
  const match = { channelType: given.channelType } as Record<string, unknown>;
  for (const field of MATCH_FIELDS) match[field] = given[field] ?? null;
  return match as unknown as RouteMatch;
}

/** Operators are compared without regard to case: the plan writes МЕГАФОН, an operator may type МегаФон. */
export const operatorKey = (operator: string): string => operator.toLocaleLowerCase('ru');
