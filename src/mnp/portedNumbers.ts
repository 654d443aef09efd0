import type { Queryable } from '../db/db.js';
import { mnpBaseImported, mnpBrands } from './mnpSql.js';

/**
 * How long a process that has seen no import done trusts that: it asks again (one indexed read of mnp_imports) at
 * most this often, so a base imported through another process is used within 5 seconds, and a Herald that never
 * imported one pays one statement per 5 seconds instead of one per batch.
 */
export const BASE_RECHECK_MS = 5000;

/**
 * The brands of ported numbers for message generation (one per process, in the context): no statement at all
 * while no base was ever imported (known from a cached flag, set at once by an import of this process), one
 * batched look-up per batch after.
 */
export class PortedNumbers {
  private imported = false;
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly recheckMs: number = BASE_RECHECK_MS) {}

  /** The brands of the ported numbers among `destinations` (see mnpBrands), read through `db`. */
  async brands(db: Queryable, destinations: readonly string[]): Promise<Map<string, string>> {
    if (destinations.length === 0) return new Map();
    if (!this.imported) {
      const now = performance.now();
      if (now - this.checkedAt < this.recheckMs) return new Map();
      this.checkedAt = now;
      this.imported = await mnpBaseImported(db);
      if (!this.imported) return new Map();
    }
    return mnpBrands(db, destinations);
  }

  /** An import of this process is done: the base is looked up from now on. */
  markImported(): void {
    this.imported = true;
  }
}
