import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { adminAccountRoutes } from './accounts/adminRoutes.js';
import { balanceRoutes } from './accounts/balanceRoutes.js';
import type { Config } from './config/config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/db.js';
import { migrate } from './db/migrate.js';
import { openDb } from './db/openDb.js';
import { type DemoCredentials, demoBanner, ensureDemo } from './demo/demo.js';
import { buildServer, type Routes } from './http/server.js';
import { systemRoutes } from './http/systemRoutes.js';
import { createLogger } from './logger.js';
import { messageRoutes } from './messages/messageRoutes.js';
import { adminSenderNameRoutes } from './senderNames/adminRoutes.js';
import { type Clock, systemClock } from './util/clock.js';

export const ROLES = ['api', 'worker', 'all'] as const;
export type Role = (typeof ROLES)[number];

/** Every route module of the API, in the order they appear in the reference. */
export const ROUTES: readonly Routes[] = [
  systemRoutes,
  messageRoutes,
  balanceRoutes,
  adminAccountRoutes,
  adminSenderNameRoutes,
];

export interface HeraldOptions {
  readonly config: Config;
  readonly role?: Role;
  readonly clock?: Clock;
  readonly log?: Logger;
  /** An already open database (tests); otherwise opened from the configuration and closed with Herald. */
  readonly db?: Db;
}

export interface Herald {
  readonly ctx: AppContext;
  /** The API server, for the api and all roles. */
  readonly server: FastifyInstance | undefined;
  /** Where the API listens, e.g. http://127.0.0.1:8080. */
  readonly url: string | undefined;
  readonly demo: DemoCredentials | undefined;
  close(): Promise<void>;
}

/** The composition root: config -> database -> migrations -> demo account -> HTTP server and workers. */
export async function startHerald(options: HeraldOptions): Promise<Herald> {
  const { config } = options;
  const role = options.role ?? 'all';
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = options.db ?? (await openDb(config, (error) => log.warn({ err: error }, 'database connection lost')));
  const ownsDb = options.db === undefined;

  try {
    const applied = await migrate(db);
    if (applied.length > 0) log.info({ versions: applied }, 'migrations applied');
    const demo = config.demo ? await ensureDemo(db, config, clock) : undefined;
    const ctx: AppContext = { config, db, clock, log, adminToken: config.adminToken ?? demo?.adminToken };

    let server: FastifyInstance | undefined;
    let url: string | undefined;
    if (role === 'api' || role === 'all') {
      server = await buildServer(ctx, ROUTES);
      const address = await server.listen({ host: config.host, port: config.port });
      url = address.replace('[::1]', 'localhost');
      if (demo) process.stdout.write(`${demoBanner(demo, url, ctx.adminToken)}\n`);
    }

    return {
      ctx,
      server,
      url,
      demo,
      async close() {
        await server?.close();
        if (ownsDb) await db.close();
      },
    };
  } catch (error) {
    if (ownsDb) await db.close().catch(() => undefined);
    throw error;
  }
}
