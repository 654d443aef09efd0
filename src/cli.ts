import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/index.js';
import { migrate } from './db/migrate.js';
import { openDb } from './db/openDb.js';
import { ROLES, type Role, startHerald } from './main.js';

const USAGE = `Usage:
  herald serve [--role api|worker|all]   run Herald (default role: all)
  herald migrate                         apply database migrations and exit

Configuration comes from HERALD_* variables and DATABASE_URL; see the README.`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string', default: 'all' }, help: { type: 'boolean', short: 'h' } },
  });
  const command = positionals[0];
  if (values.help || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadConfig();

  if (command === 'migrate') {
    const db = await openDb(config);
    try {
      const applied = await migrate(db);
      process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'database is up to date\n');
    } finally {
      await db.close();
    }
    return 0;
  }
  if (command === 'serve') {
    const role = values.role as Role;
    if (!ROLES.includes(role)) throw new ConfigError('--role', `must be one of ${ROLES.join(', ')} (got ${role})`);
    const herald = await startHerald({ config, role });
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      herald.ctx.log.info({ signal }, 'shutting down');
      // Bounded: what is unfinished at the deadline stays leased in the database and is taken again after the lease.
      setTimeout(() => {
        herald.ctx.log.error({ seconds: config.shutdownSeconds }, 'shutdown did not finish in time; exiting');
        process.exit(1);
      }, config.shutdownSeconds * 1000).unref();
      herald.close().then(
        () => process.exit(0),
        (error: unknown) => {
          herald.ctx.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    return -1;
  }
  process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`herald: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`herald: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
