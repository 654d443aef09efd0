import type { Db, Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { type TariffRow, tariffList } from './tariffSql.js';

/** A price per part in a currency. */
export interface Price {
  readonly perPart: number;
  readonly currency: string;
}

/** How long a process trusts its copy of the tariffs; changes through this process's operator API apply at once. */
const TARIFF_CACHE_MS = 5000;

/** One account's (or the defaults') tariffs of one channel, indexed for a lookup per message. */
interface TariffIndex {
  readonly byPrefix: Map<string, TariffRow>;
  readonly byCountry: Map<string, TariffRow>;
  any: TariffRow | undefined;
}

/**
 * The tariff table in memory: a price per part by channel and destination, per account or
 * default. An account's own tariffs win over the defaults; within each, the longest matching prefix wins, then a
 * tariff for the destination's country, then one for the whole channel (no prefix, no country).
 */
export class Tariffs {
  /** By `${accountId ?? ''}|${channel}`: a lookup probes a destination's prefixes, not every tariff. */
  private index = new Map<string, TariffIndex>();
  private loadedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /** Forgets the cached table (after a change through the operator API). */
  invalidate(): void {
    this.loadedAt = 0;
  }

  /**
   * Loads the table again when the cached one is old. `within`: the caller's transaction, read through itself: a
   * transaction that waited for a read on another connection would wait forever on the embedded database (one
   * connection), so it neither starts nor joins a shared load.
   */
  async refresh(within?: Queryable): Promise<void> {
    if (Date.now() - this.loadedAt < TARIFF_CACHE_MS) return;
    if (within) {
      this.loaded(await tariffList(within));
      return;
    }
    this.loading ??= tariffList(this.db).then(
      (rows) => {
        this.loaded(rows);
        this.loading = undefined;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    await this.loading;
  }

  private loaded(rows: readonly TariffRow[]): void {
    this.index = indexTariffs(rows);
    this.loadedAt = Date.now();
  }

  /** The price of one part, or undefined when no tariff applies (the message is then free, or refused). */
  lookup(accountId: number, channel: Channel, destination: string, country: string | null): Price | undefined {
    const row =
      best(this.index.get(`${accountId}|${channel}`), destination, country) ??
      best(this.index.get(`|${channel}`), destination, country);
    return row ? { perPart: Number(row.price), currency: row.currency } : undefined;
  }
}

/** The longest matching prefix, else the country, else the whole channel. */
function best(tariffs: TariffIndex | undefined, destination: string, country: string | null): TariffRow | undefined {
  if (!tariffs) return undefined;
  for (let length = destination.length; length >= 0; length--) {
    const row = tariffs.byPrefix.get(destination.slice(0, length));
    if (row) return row;
  }
  return (country !== null ? tariffs.byCountry.get(country) : undefined) ?? tariffs.any;
}

function indexTariffs(rows: readonly TariffRow[]): Map<string, TariffIndex> {
  const index = new Map<string, TariffIndex>();
  // Of two tariffs for the same place, the newer (higher id) wins.
  const newer = (a: TariffRow | undefined, b: TariffRow): TariffRow => (a && a.id > b.id ? a : b);
  for (const row of rows) {
    const key = `${row.account_id ?? ''}|${row.channel_type}`;
    let entry = index.get(key);
    if (!entry) {
      entry = { byPrefix: new Map(), byCountry: new Map(), any: undefined };
      index.set(key, entry);
    }
    if (row.prefix !== null) entry.byPrefix.set(row.prefix, newer(entry.byPrefix.get(row.prefix), row));
    else if (row.country !== null) entry.byCountry.set(row.country, newer(entry.byCountry.get(row.country), row));
    else entry.any = newer(entry.any, row);
  }
  return index;
}
