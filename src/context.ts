import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Db } from './db/db.js';
import type { Clock } from './util/clock.js';

/** What every capability is given: configuration, database, clock and logger. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  /** The operator API token: HERALD_ADMIN_TOKEN, or the one demo mode generated; undefined disables the API. */
  readonly adminToken: string | undefined;
}
