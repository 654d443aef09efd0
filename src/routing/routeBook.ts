import type { Logger } from 'pino';
import type { Queryable } from '../db/db.js';
import { Loop } from '../shared/loop.js';
import type { Clock } from '../util/clock.js';
import type { Route, RouteConnector, RouteQuery } from './route.js';
import { routeBookVersion, routeListAll } from './routeSql.js';
import { type ConnectorView, connectorOrder, RouteTable } from './routeTable.js';

/** How often a process looks at the book's version even when no wake-up came (one lost while reconnecting). */
export const ROUTE_CHECK_MS = 2000;
/** How often the delivery rates of the routes' quality windows are read again. */
const RATES_EVERY_MS = 10_000;

/** Where the rates come from (connectors/ owns connector_outcomes; main.ts passes connectorDeliveryRates). */
export type DeliveryRates = (db: Queryable, windows: readonly number[], now: Date) => Promise<Map<string, number>>;

/**
 * A process's copy of the routes (DESIGN 21): the table compiled from the database, loaded again whenever the book's
 * version moved (a change through the operator API anywhere), and the connectors' delivery rates the quality floors
 * read. `refresh` costs one one-row read when nothing changed.
 */
export class RouteBook {
  private table = RouteTable.EMPTY;
  private version = -1;
  private loading: Promise<void> | undefined;
  private rates = new Map<string, number>();
  private ratesAt = -Infinity;

  constructor(
    private readonly db: Queryable,
    private readonly rateSource: DeliveryRates,
  ) {}

  get routes(): RouteTable {
    return this.table;
  }

  /** Loads the routes when their version moved, and the quality windows' rates when they are old. */
  async refresh(now: Date): Promise<void> {
    const version = await routeBookVersion(this.db);
    if (version !== this.version) await this.load();
    if (now.getTime() - this.ratesAt >= RATES_EVERY_MS) await this.refreshRates(now);
  }

  /**
   * Loads every route, reading them after the load under way (if any) ends: a load asked for after a change reads
   * the table as it is since, never the one a load that began before the change read. Loads take turns, so a
   * version never replaces a later one.
   */
  async load(): Promise<void> {
    const before = this.loading;
    const mine = (async () => {
      await before?.catch(() => undefined);
      const { version, routes } = await routeListAll(this.db);
      this.table = new RouteTable(routes);
      this.version = version;
    })();
    this.loading = mine;
    try {
      await mine;
    } finally {
      if (this.loading === mine) this.loading = undefined;
    }
  }

  /** Loads the routes and reads the rates of their quality windows now: after a change made through this process. */
  async reload(now: Date): Promise<void> {
    await this.load();
    await this.refreshRates(now);
  }

  private async refreshRates(now: Date): Promise<void> {
    const windows = [...this.table.qualityWindows()];
    this.rates = windows.length === 0 ? new Map() : await this.rateSource(this.db, windows, now);
    this.ratesAt = now.getTime();
  }

  /** The delivered share of a connector's final receipts over a window, or undefined when too few came. */
  deliveryRate(connectorId: string, windowSeconds: number): number | undefined {
    return this.rates.get(`${connectorId}|${windowSeconds}`);
  }

  /**
   * The route a message takes and its usable connectors in the order to try them (see connectorOrder), or the
   * route with an empty order (none usable), or undefined without a route.
   */
  choose(
    query: RouteQuery,
    usable: (connectorId: string) => boolean,
    random: () => number = Math.random,
  ): { route: Route; order: RouteConnector[] } | undefined {
    const route = this.table.match(query);
    if (!route) return undefined;
    const view: ConnectorView = { usable, deliveryRate: (id, w) => this.deliveryRate(id, w), random };
    return { route, order: connectorOrder(route, view) };
  }
}

/**
 * Keeps a worker's route book current: a wake-up of topic 'routes' (main.ts passes it on) refreshes at once, and a
 * look every {@link ROUTE_CHECK_MS} catches what a lost notification missed.
 */
export class RouteBookWatcher extends Loop {
  constructor(
    private readonly book: RouteBook,
    private readonly deps: { clock: Clock; log: Logger },
  ) {
    super(deps.clock);
  }

  /** A change was announced. */
  changed(): void {
    this.wake.notify();
  }

  protected async run(): Promise<void> {
    while (this.running) {
      await this.book
        .refresh(this.deps.clock.now())
        .catch((error: unknown) => this.deps.log.warn({ err: error }, 'routes not reloaded; trying again'));
      if (this.running) await this.wake.wait(ROUTE_CHECK_MS);
    }
  }
}
