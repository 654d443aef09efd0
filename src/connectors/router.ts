import type { RouteConfig } from './connectorConfig.js';
import type { Channel } from '../shared/channels.js';
import type { Connector } from './connector.js';

/**
 * Picks a connector for a message: among the channel's routes, the one with the longest
 * prefix of the destination (a route without prefixes matches every destination); within it, the first
 * available connector in the configured order, the next ones being fallbacks.
 */
export class Router {
  private readonly byChannel = new Map<Channel, { prefixes: readonly string[]; connectors: Connector[] }[]>();

  constructor(routes: readonly RouteConfig[], connectors: readonly Connector[]) {
    const byId = new Map(connectors.map((c) => [c.id, c]));
    for (const route of routes) {
      const list = this.byChannel.get(route.channel) ?? [];
      list.push({ prefixes: route.prefixes, connectors: route.connectors.map((id) => byId.get(id)!).filter(Boolean) });
      this.byChannel.set(route.channel, list);
    }
  }

  /** The route's connectors for a destination, in order of preference; empty when no route matches. */
  candidates(channel: Channel, destination: string): readonly Connector[] {
    let best: Connector[] = [];
    let bestLength = -1;
    for (const route of this.byChannel.get(channel) ?? []) {
      const length =
        route.prefixes.length === 0
          ? 0
          : Math.max(-1, ...route.prefixes.filter((p) => destination.startsWith(p)).map((p) => p.length));
      if (length > bestLength) {
        best = route.connectors;
        bestLength = length;
      }
    }
    return best;
  }

  /** The first available connector for a destination that carries the content. */
  pick(channel: Channel, destination: string, content?: unknown): Connector | undefined {
    const routes = this.byChannel.get(channel);
    // The usual case, one route for the whole channel, without building a candidate list per message.
    const only = routes?.length === 1 && routes[0]!.prefixes.length === 0 ? routes[0]!.connectors : undefined;
    for (const connector of only ?? this.candidates(channel, destination)) {
      if (connector.available() && (connector.carries?.(content) ?? true)) return connector;
    }
    return undefined;
  }
}
