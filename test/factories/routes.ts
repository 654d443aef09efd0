import type { Route, RouteFields } from '../../src/routing/index.js';
import { matchOf } from '../../src/routing/route.js';
import type { Channel } from '../../src/shared/channels.js';

/** A route's fields: every match field absent but the channel, the connectors in order, no prices. */
export function routeFields(
  channel: Channel,
  connectorIds: readonly string[],
  more: Partial<RouteFields> = {},
): RouteFields {
  return {
    priority: 0,
    match: matchOf({ channelType: channel }),
    connectors: connectorIds.map((connectorId) => ({ connectorId, weight: null, buyPrice: null })),
    strategy: 'ordered',
    reroute: null,
    quality: null,
    ...more,
  };
}

/** A stored route of {@link routeFields}, as the route table takes it. */
export function orderedRoute(channel: Channel, connectorIds: readonly string[], id = 1): Route {
  return { ...routeFields(channel, connectorIds), id, createdAt: new Date(0), updatedAt: new Date(0) };
}
