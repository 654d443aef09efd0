import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_ACCOUNT_CONCURRENCY,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_DB_IDLE_SECONDS,
  loadConfig,
} from '../../src/config/config.js';

describe('configuration (DESIGN 1)', () => {
  it('defaults to embedded mode with demo, simulators and private callbacks on', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: undefined,
      adminToken: undefined,
      simulators: true,
      simDelayMs: 200,
      shortUrlBase: 'http://127.0.0.1:8080/s',
      callbackRetryIntervalS: 300,
      callbackRetryWindowS: 86400,
      callbackAllowPrivate: true,
      conversionPort: undefined,
      demo: true,
      logLevel: 'info',
      bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
      currency: 'RUB',
      dbPreparedStatements: true,
    });
    expect(config.dataDir).toMatch(/\/data$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('turns demo, simulators, short links and private callbacks off with DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/herald' });
    expect(config.readDatabaseUrl).toBeUndefined();
    expect(config).toMatchObject({
      databaseUrl: 'postgres://u@db:5432/herald',
      demo: false,
      simulators: false,
      shortUrlBase: undefined,
      callbackAllowPrivate: false,
      dbIdleSeconds: DEFAULT_DB_IDLE_SECONDS,
    });
  });

  it('reads a read replica next to a PostgreSQL primary', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db:5432/herald',
      HERALD_READ_DATABASE_URL: 'postgres://u@replica:5432/herald',
    });
    expect(config.readDatabaseUrl).toBe('postgres://u@replica:5432/herald');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HERALD_HOST: '0.0.0.0',
      HERALD_PORT: '9000',
      HERALD_DATA_DIR: '/tmp/herald-x',
      HERALD_ADMIN_TOKEN: 'a'.repeat(32),
      HERALD_SIMULATORS: 'off',
      HERALD_SIM_DELAY_MS: '0',
      HERALD_SHORT_URL_BASE: 'https://s.example.com/l/',
      HERALD_CALLBACK_RETRY_INTERVAL: '5',
      HERALD_CALLBACK_RETRY_WINDOW: '60',
      HERALD_CALLBACK_ALLOW_PRIVATE: 'false',
      HERALD_CONVERSION_PORT: '9001',
      HERALD_DEMO: 'false',
      HERALD_LOG_LEVEL: 'warn',
      HERALD_BODY_LIMIT: '2048',
      HERALD_CURRENCY: 'USD',
      HERALD_DB_POOL_SIZE: '4',
      HERALD_DB_IDLE_SECONDS: '30',
      HERALD_DB_PREPARED_STATEMENTS: 'false',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/tmp/herald-x',
      simulators: false,
      simDelayMs: 0,
      shortUrlBase: 'https://s.example.com/l',
      callbackRetryIntervalS: 5,
      callbackRetryWindowS: 60,
      callbackAllowPrivate: false,
      conversionPort: 9001,
      demo: false,
      logLevel: 'warn',
      bodyLimitBytes: 2048,
      currency: 'USD',
      dbPoolSize: 4,
      dbIdleSeconds: 30,
      dbPreparedStatements: false,
    });
  });

  it.each([
    ['HERALD_PORT', '80a', 'HERALD_PORT: must be an integer from 0 to 65535 (got "80a")'],
    ['HERALD_PORT', '70000', 'HERALD_PORT: must be an integer from 0 to 65535 (got "70000")'],
    ['HERALD_SIMULATORS', 'yes', 'HERALD_SIMULATORS: must be on or off (got "yes")'],
    ['HERALD_DEMO', '1', 'HERALD_DEMO: must be true or false (got "1")'],
    ['HERALD_CALLBACK_ALLOW_PRIVATE', 'TRUE', 'HERALD_CALLBACK_ALLOW_PRIVATE: must be true or false (got "TRUE")'],
    ['HERALD_DB_IDLE_SECONDS', '0', 'HERALD_DB_IDLE_SECONDS: must be an integer from 1 to 86400 (got "0")'],
    ['HERALD_DB_PREPARED_STATEMENTS', 'off', 'HERALD_DB_PREPARED_STATEMENTS: must be true or false (got "off")'],
    ['HERALD_SIM_DELAY_MS', '-1', 'HERALD_SIM_DELAY_MS: must be an integer from 0 to 3600000 (got "-1")'],
    [
      'HERALD_CALLBACK_RETRY_INTERVAL',
      '0',
      'HERALD_CALLBACK_RETRY_INTERVAL: must be an integer from 1 to 86400 (got "0")',
    ],
    [
      'HERALD_SHORT_URL_BASE',
      'example.com/s',
      'HERALD_SHORT_URL_BASE: must be an absolute http(s) URL (got "example.com/s")',
    ],
    [
      'HERALD_ADMIN_TOKEN',
      'short',
      'HERALD_ADMIN_TOKEN: must be at least 24 characters (value not shown: it may hold a secret)',
    ],
    [
      'HERALD_LOG_LEVEL',
      'verbose',
      'HERALD_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    ],
    ['HERALD_CURRENCY', 'rub', 'HERALD_CURRENCY: must be a three-letter ISO 4217 code such as RUB (got "rub")'],
    // libuv's pool has 4 threads (no UV_THREADPOOL_SIZE in tests): hashing on all of them leaves file reads none.
    [
      'HERALD_PASSWORD_HASH_CONCURRENCY',
      '4',
      'HERALD_PASSWORD_HASH_CONCURRENCY: must be an integer from 1 to 3 (got "4")',
    ],
    ['HERALD_PASSWORD_HASH_QUEUE', '-1', 'HERALD_PASSWORD_HASH_QUEUE: must be an integer from 0 to 100000 (got "-1")'],
    ['HERALD_PASSWORD_SCRYPT_COST', '9', 'HERALD_PASSWORD_SCRYPT_COST: must be an integer from 10 to 20 (got "9")'],
    [
      'HERALD_WEBHOOK_BODY_LIMIT',
      '100',
      'HERALD_WEBHOOK_BODY_LIMIT: must be an integer from 1024 to 1073741824 (got "100")',
    ],
    [
      'DATABASE_URL',
      'mysql://x',
      'DATABASE_URL: must be a postgres:// or postgresql:// URL (value not shown: it may hold a secret)',
    ],
    [
      'HERALD_READ_DATABASE_URL',
      'replica:5432',
      'HERALD_READ_DATABASE_URL: must be a postgres:// or postgresql:// URL (value not shown: it may hold a secret)',
    ],
    // A replica needs a PostgreSQL primary: with the embedded database it is refused, not ignored.
    [
      'HERALD_READ_DATABASE_URL',
      'postgres://u@replica:5432/herald',
      'HERALD_READ_DATABASE_URL: needs DATABASE_URL (a replica of a PostgreSQL primary)',
    ],
  ])('%s=%s stops start-up naming the variable', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as Error).message).toBe(message);
  });

  it("reads worker tuning with the capabilities' defaults, in range, and refuses more per host than in all", () => {
    expect(loadConfig({}).workers).toEqual({
      dispatchBatch: 500,
      dispatchPollMs: 5000,
      dispatchMaxInFlight: 18_000,
      dispatchChannelInFlight: 6000,
      dispatchUrgentPercent: 20,
      noRouteRetryMs: 2000,
      writerBatch: 2000,
      writerLingerMs: 5,
      callbackTimeoutMs: 10_000,
      callbackMaxInFlight: 64,
      callbackPerHost: 16,
      callbackPollMs: 5000,
      callbackBreakerFailures: 5,
      callbackBreakerOpenMs: 30_000,
    });
    const tuned = loadConfig({
      HERALD_DISPATCH_BATCH: '100',
      HERALD_WRITER_LINGER_MS: '0',
      HERALD_CALLBACK_PER_HOST: '64',
    }).workers;
    expect(tuned).toMatchObject({ dispatchBatch: 100, writerLingerMs: 0, callbackPerHost: 64 });
    expect(() => loadConfig({ HERALD_DISPATCH_BATCH: '0' })).toThrow(
      /HERALD_DISPATCH_BATCH: must be an integer from 1 to 10000/,
    );
    expect(() => loadConfig({ HERALD_CALLBACK_POLL_MS: 'fast' })).toThrow(/HERALD_CALLBACK_POLL_MS/);
    expect(() => loadConfig({ HERALD_CALLBACK_PER_HOST: '65' })).toThrow(
      'HERALD_CALLBACK_PER_HOST: must not exceed HERALD_CALLBACK_MAX_IN_FLIGHT (64)',
    );
  });

  it('reads the pumping switch: hold by default, monitor or off, nothing else', () => {
    expect(loadConfig({}).pumpingMode).toBe('hold');
    expect(loadConfig({ HERALD_PUMPING_MODE: 'monitor' }).pumpingMode).toBe('monitor');
    expect(loadConfig({ HERALD_PUMPING_MODE: 'off' }).pumpingMode).toBe('off');
    expect(() => loadConfig({ HERALD_PUMPING_MODE: 'strict' })).toThrow(
      /HERALD_PUMPING_MODE: must be one of off, monitor, hold/,
    );
  });

  it('listens for wake-ups on DATABASE_URL unless HERALD_LISTEN_DATABASE_URL names a direct connection', () => {
    const pooled = 'postgres://herald@127.0.0.1:6432/herald';
    const direct = 'postgres://herald@127.0.0.1:5432/herald';
    expect(loadConfig({}).listenDatabaseUrl).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: direct }).listenDatabaseUrl).toBe(direct);
    expect(loadConfig({ DATABASE_URL: pooled, HERALD_LISTEN_DATABASE_URL: direct }).listenDatabaseUrl).toBe(direct);
    expect(() => loadConfig({ HERALD_LISTEN_DATABASE_URL: direct })).toThrow(
      'HERALD_LISTEN_DATABASE_URL: needs DATABASE_URL (the embedded database listens itself)',
    );
    expect(() => loadConfig({ DATABASE_URL: direct, HERALD_LISTEN_DATABASE_URL: 'mysql://x/y' })).toThrow(
      'HERALD_LISTEN_DATABASE_URL: must be a postgres:// or postgresql:// URL (value not shown: it may hold a secret)',
    );
  });

  it('reads how long parts of long inbound SMS wait and how often they are looked over, within the wait', () => {
    expect(loadConfig({})).toMatchObject({ inboundPartsWaitSeconds: 600, inboundPartsSweepSeconds: 60 });
    expect(loadConfig({ HERALD_INBOUND_PARTS_WAIT_SECONDS: '30' })).toMatchObject({
      inboundPartsWaitSeconds: 30,
      inboundPartsSweepSeconds: 30,
    });
    expect(() => loadConfig({ HERALD_INBOUND_PARTS_WAIT_SECONDS: '5' })).toThrow(
      'HERALD_INBOUND_PARTS_WAIT_SECONDS: must be an integer from 10 to 604800 (got "5")',
    );
    expect(() =>
      loadConfig({ HERALD_INBOUND_PARTS_WAIT_SECONDS: '60', HERALD_INBOUND_PARTS_SWEEP_SECONDS: '120' }),
    ).toThrow('HERALD_INBOUND_PARTS_SWEEP_SECONDS: must not exceed HERALD_INBOUND_PARTS_WAIT_SECONDS (60)');
  });

  it("limits an account's requests at once: 2 by default, 0 for none, on PostgreSQL below half the pool", () => {
    expect(loadConfig({}).accountConcurrency).toBe(DEFAULT_ACCOUNT_CONCURRENCY);
    expect(loadConfig({ HERALD_ACCOUNT_CONCURRENCY: '0' }).accountConcurrency).toBe(0);
    expect(loadConfig({ HERALD_ACCOUNT_CONCURRENCY: '50' }).accountConcurrency).toBe(50);
    const postgres = { DATABASE_URL: 'postgres://u@db:5432/herald' };
    expect(loadConfig(postgres).accountConcurrency).toBe(2);
    expect(
      loadConfig({ ...postgres, HERALD_DB_POOL_SIZE: '31', HERALD_ACCOUNT_CONCURRENCY: '15' }).accountConcurrency,
    ).toBe(15);
    // A smaller pool lowers the default with it, never to no limit.
    expect(loadConfig({ ...postgres, HERALD_DB_POOL_SIZE: '4' }).accountConcurrency).toBe(1);
    expect(loadConfig({ ...postgres, HERALD_DB_POOL_SIZE: '1' }).accountConcurrency).toBe(1);
    expect(() => loadConfig({ ...postgres, HERALD_ACCOUNT_CONCURRENCY: '5' })).toThrow(
      new ConfigError(
        'HERALD_ACCOUNT_CONCURRENCY',
        'must not exceed (HERALD_DB_POOL_SIZE - 1) / 2 (4): one account would hold every connection',
      ),
    );
    expect(() => loadConfig({ HERALD_ACCOUNT_CONCURRENCY: '-1' })).toThrow(
      'HERALD_ACCOUNT_CONCURRENCY: must be an integer from 0 to 100000 (got "-1")',
    );
  });

  it('refuses an unknown HERALD_ variable instead of ignoring a typo', () => {
    expect(() => loadConfig({ HERALD_PROT: '80' })).toThrow(/^HERALD_PROT: unknown variable; known: HERALD_HOST/);
  });
});
