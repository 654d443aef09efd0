import type { Db } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { type TariffRow, tariffList } from './tariffSql.js';

/** A price per part in a currency. */
export interface Price {
  readonly perPart: number;
  readonly currency: string;
}

/** How long a process trusts its copy of the tariffs; changes through this process's operator API apply at once. */
const TARIFF_CACHE_MS = 5000;

/**
 * The tariff table in memory (DESIGN section 7): a price per part by channel and destination, per account or
 * default. An account's own tariffs win over the defaults; within each, the longest matching prefix wins, then a
 * tariff for the destination's country, then one for the whole channel (no prefix, no country).
 */
export class Tariffs {
  private rows: TariffRow[] = [];
  private loadedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /** Forgets the cached table (after a change through the operator API). */
  invalidate(): void {
    this.loadedAt = 0;
  }

  async refresh(now = Date.now()): Promise<void> {
    if (now - this.loadedAt < TARIFF_CACHE_MS) return;
    this.loading ??= tariffList(this.db).then(
      (rows) => {
        this.rows = rows;
        this.loadedAt = Date.now();
        this.loading = undefined;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    await this.loading;
  }

  /** The price of one part, or undefined when no tariff applies (the message is then free, or refused). */
  lookup(accountId: number, channel: Channel, destination: string, country: string | null): Price | undefined {
    return this.best(accountId, channel, destination, country) ?? this.best(null, channel, destination, country);
  }

  private best(accountId: number | null, channel: Channel, destination: string, country: string | null): Price | undefined {
    let best: TariffRow | undefined;
    let bestScore = -1;
    for (const row of this.rows) {
      if (row.channel_type !== channel || row.account_id !== accountId) continue;
      let score: number;
      if (row.prefix !== null) {
        if (!destination.startsWith(row.prefix)) continue;
        score = 100 + row.prefix.length;
      } else if (row.country !== null) {
        if (row.country !== country) continue;
        score = 50;
      } else {
        score = 0;
      }
      if (score > bestScore || (score === bestScore && best && row.id > best.id)) {
        best = row;
        bestScore = score;
      }
    }
    return best ? { perPart: Number(best.price), currency: best.currency } : undefined;
  }
}
