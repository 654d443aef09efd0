import pino, { type Logger } from 'pino';
import type { CallbackSenderOptions } from '../../src/callbacks/callbackSender.js';
import { loadConfig } from '../../src/config/config.js';
import type { SubmitterOptions } from '../../src/delivery/submitter.js';
import { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import { type Herald, startHerald } from '../../src/main.js';
import type { SmppServerOptions } from '../../src/smppServer/index.js';
import { type EmbeddedSimulators, startEmbeddedSimulators } from '../../src/simulators/embeddedSimulators.js';
import type { Channel } from '../../src/shared/channels.js';
import type { ConfigFile } from '../../src/config/index.js';
import { TestClock } from './clock.js';
import { type Engine, openTestDb, type TestDb } from './engines.js';
import { call, type CallOptions, type Reply } from './http.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** The key id of a token (`base64("<keyId>:<secret>")`, DESIGN section 2). */
export const keyIdOf = (token: string): string => Buffer.from(token, 'base64').toString('utf8').split(':')[0]!;

/**
 * The secret half of a token (`base64("<keyId>:<secret>")`; the key id alone is an identifier, not a credential): an
 * SMPP bind's long password.
 */
export const secretOf = (token: string): string => Buffer.from(token, 'base64').toString('utf8').split(':')[1]!;

export interface TestAccount {
  readonly id: number;
  readonly traffic: string;
  readonly system: string;
}

export interface AccountOptions {
  readonly senderNames?: readonly [Channel, string][];
  readonly channels?: Partial<Record<Channel, boolean>>;
  readonly balance?: number;
  /**
   * For each WHATSAPP sender name, an approved template matching any text (`%s`), so that WhatsApp messages go out
   * without a chat window (default true).
   */
  readonly openWhatsapp?: boolean;
  /**
   * The bot token attached to each TELEGRAM sender name, by name (null: none, so the name is not active); a name left
   * out gets testBotToken(its id), so that a TELEGRAM name of `senderNames` can send.
   */
  readonly botTokens?: Readonly<Record<string, string | null>>;
  /** Called before a bot token is attached (a test's Telegram simulator learns the bot, as Telegram knows it). */
  readonly beforeBotToken?: (token: string, name: string) => void;
  /**
   * Keep the fraud guard's defaults (default false): tests and benchmarks send many messages to one fixture number,
   * so their accounts have the flood filter (6 equal texts, 20 messages per destination an hour) off, as the
   * operator may set it; the guard's own tests keep it.
   */
  readonly guardDefaults?: boolean;
}

/** The bot token a TELEGRAM sender name of a test account gets unless told otherwise: the form of a real one. */
export const testBotToken = (senderNameId: number): string =>
  `${1_000_000 + senderNameId}:AAE-test-bot-token-${String(senderNameId).padStart(12, '0')}`;

/**
 * Creates an account through a Herald's operator API (a test's in-process Herald or, in benchmarks, a Herald
 * process), with approved sender names that started a minute before `now`, channel switches and a balance.
 */
export async function createAccountVia(
  h: { readonly url: string; admin<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> },
  now: () => Date,
  options: AccountOptions = {},
): Promise<TestAccount> {
  const created = await h.admin('POST', '/admin/v1/accounts', { name: 'Test account' });
  if (created.status !== 201) throw new Error(`account not created: ${JSON.stringify(created.body)}`);
  const id = created.body.id as number;
  const started = new Date(now().getTime() - 60_000).toISOString();
  const changes = {
    ...(options.channels ? { channels: options.channels } : {}),
    ...(options.guardDefaults ? {} : { flood: null }),
  };
  if (Object.keys(changes).length > 0) await h.admin('PATCH', `/admin/v1/accounts/${id}`, changes);
  for (const [channelType, name] of options.senderNames ?? []) {
    const made = await h.admin('POST', `/admin/v1/accounts/${id}/sender-names`, {
      channelType,
      name,
      startDate: started,
    });
    if (made.status !== 201) throw new Error(`sender name not created: ${JSON.stringify(made.body)}`);
    if (channelType !== 'TELEGRAM') continue;
    const botToken = options.botTokens?.[name] === undefined ? testBotToken(made.body.id) : options.botTokens[name];
    if (botToken === null) continue;
    options.beforeBotToken?.(botToken, name);
    const patched = await h.admin('PATCH', `/admin/v1/sender-names/${made.body.id}`, { botToken });
    if (patched.status !== 200) throw new Error(`bot token not attached: ${JSON.stringify(patched.body)}`);
  }
  if (options.openWhatsapp !== false) {
    for (const [channelType, name] of options.senderNames ?? []) {
      if (channelType !== 'WHATSAPP') continue;
      const template = await call(h.url, 'POST', '/api/v1/templates', {
        token: created.body.tokens.system,
        body: { channelType: 'WHATSAPP', templateType: 'SERVICE', pattern: '%s', senderName: name, dateFrom: started },
      });
      if (template.status !== 201) throw new Error(`template not created: ${JSON.stringify(template.body)}`);
      await h.admin('POST', `/admin/v1/templates/${template.body.id}/approve`, {});
    }
  }
  if (options.balance)
    await h.admin('POST', `/admin/v1/accounts/${id}/balance`, { currency: 'RUB', amount: options.balance });
  return { id, traffic: created.body.tokens.traffic, system: created.body.tokens.system };
}

/**
 * Sends messages with a traffic token through a Herald's API (in-process or a process of a cluster), expects every
 * one taken, and returns their ids in request order: the one send helper of the tests.
 */
export async function sendVia(
  h: { call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>> },
  token: string,
  messages: readonly Record<string, unknown>[],
): Promise<string[]> {
  const reply = await h.call('POST', '/api/v1/message', { token, body: messages });
  if (reply.status !== 200 || reply.body.errors !== false)
    throw new Error(`not every message was taken: ${reply.status} ${JSON.stringify(reply.body).slice(0, 500)}`);
  return reply.body.items.map((item: { messageUuid: string }) => item.messageUuid);
}

export interface TestHerald {
  readonly herald: Herald;
  /** The carrier simulators, when started with `delivery`. */
  readonly simulators: EmbeddedSimulators | undefined;
  readonly url: string;
  readonly testDb: TestDb;
  readonly clock: TestClock;
  /** A client API call. */
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  /** An operator API call with the admin token. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** Creates an account through the operator API, with approved sender names and channel switches. */
  createAccount(options?: AccountOptions): Promise<TestAccount>;
  /** Sends messages with a traffic token, expects every one taken, and returns their ids in order. */
  send(token: string, messages: readonly Record<string, unknown>[]): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Herald on a fresh database of the given engine, listening on a free loopback port, with a test clock and the
 * operator API on. `env` adds or overrides HERALD_* variables.
 */
export async function startTestHerald(
  engine: Engine,
  options: {
    env?: Record<string, string>;
    clock?: TestClock;
    /** Runs the whole pipeline (role all) against test-owned carrier simulators with this receipt delay. */
    delivery?: {
      delayMs: number;
      submitter?: Partial<SubmitterOptions>;
      /** false: TELEGRAM numbers must link by sharing their contact (default: every number counts as linked). */
      simulatedTelegramLinks?: boolean;
      /** Changes the simulators' connectors and routes before Herald reads them (another connector for a channel). */
      configure?: (file: ConfigFile) => ConfigFile;
    };
    log?: Logger;
    callbackSender?: Partial<CallbackSenderOptions>;
    /** The SMPP server's tuning (it listens with HERALD_SMPP_PORT in `env`). */
    smppServer?: Partial<SmppServerOptions>;
    /**
     * A database and simulators of the test's own, for a test that starts several Heralds on them in turn (a
     * restart); `close()` leaves them open.
     */
    on?: { testDb: TestDb; simulators: EmbeddedSimulators | undefined };
    /**
     * Runs on the migrated database before Herald starts: DDL on its tables (a test's trigger) made while none of
     * Herald's statements run. Made later, it waits behind them and can deadlock with them.
     */
    prepare?: (db: TestDb['db']) => Promise<void>;
  } = {},
): Promise<TestHerald> {
  const testDb = options.on?.testDb ?? (await openTestDb(engine));
  await options.prepare?.(testDb.db);
  const clock = options.clock ?? new TestClock();
  const simulators =
    options.on?.simulators ??
    (options.delivery
      ? await startEmbeddedSimulators({
          delayMs: options.delivery.delayMs,
          clock,
          simulatedTelegramLinks: options.delivery.simulatedTelegramLinks,
        })
      : undefined);
  const config = loadConfig({
    HERALD_PORT: '0',
    HERALD_DEMO: 'false',
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
    HERALD_SIMULATORS: 'off',
    HERALD_LOG_LEVEL: 'silent',
    // Hundreds of sign-ins: ~3 ms a hash instead of ~170 ms (passwords.test.ts hashes at the default).
    HERALD_PASSWORD_SCRYPT_COST: '10',
    // Tests send hundreds to one number range from a new account: the pumping detection would hold them. Its own
    // tests (test/fraud) switch it on.
    HERALD_PUMPING_MODE: 'off',
    ...options.env,
  });
  const herald = await startHerald({
    config,
    role: simulators ? 'all' : 'api',
    clock,
    db: testDb.db,
    log: options.log ?? pino({ level: config.logLevel }),
    // A receiver slowed by a loaded machine may trip the circuit breaker: a short pause keeps tests from stalling.
    callbackSender: { pollMs: 50, timeoutMs: 1000, breakerOpenMs: 2000, ...options.callbackSender },
    ...(options.smppServer ? { smppServer: options.smppServer } : {}),
    ...(simulators
      ? {
          configFile: options.delivery?.configure?.(simulators.configFile) ?? simulators.configFile,
          simulatorCarriers: true,
          submitter: { pollMs: 50, ...options.delivery?.submitter },
          startJobs: false,
        }
      : {}),
  });
  const url = herald.url!;
  simulators?.connectWebhooks(url);
  // A message sent before the SMSC bind finds no connector and waits for the test clock to retry it: tests begin bound.
  for (const connector of herald.connectors) {
    if (connector instanceof SmppConnector && !(await connector.waitBound(20_000)))
      throw new Error(`${connector.id} did not bind within 20 s`);
  }

  const t: TestHerald = {
    herald,
    simulators,
    url,
    testDb,
    clock,
    call: (method, path, callOptions) => call(url, method, path, callOptions),
    admin: (method, path, body) => call(url, method, path, { auth: `Bearer ${ADMIN_TOKEN}`, body }),
    createAccount: (accountOptions = {}) =>
      createAccountVia(t, () => clock.now(), {
        beforeBotToken: (token, name) => simulators?.telegram.bot.addBot(token, name),
        ...accountOptions,
      }),
    send: (token, messages) => sendVia(t, token, messages),
    async close() {
      await herald.close();
      if (options.on) return;
      await simulators?.stop();
      await testDb.drop();
    },
  };
  return t;
}
