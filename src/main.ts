import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { adminAccountRoutes, adminUserRoutes, apiKeyRoutes, balanceRoutes, sessionRoutes } from './accounts/routes.js';
import { PasswordHasher, SCRYPT_PARAMS } from './accounts/index.js';
import { type Config, ConfigError, type ConfigFile, loadConfigFile } from './config/index.js';
import { adminConnectorRoutes, webhookRoutes } from './connectors/routes.js';
import {
  botConnectorOf,
  botsPublicUrl,
  botWebhooksRegisterAll,
  TelegramChatDirectory,
  telegramBotSetup,
} from './telegram/index.js';
import { telegramRoutes } from './telegram/routes.js';
import {
  blocklistCodesOf,
  buildConnectors,
  type Connector,
  connectorDeliveryRates,
  ConnectorOutcomes,
  ConnectorStatusWriter,
  statusPollJobs,
} from './connectors/index.js';
import {
  adminMarginRoutes,
  adminRouteRoutes,
  RouteBook,
  RouteBookWatcher,
  routeSeed,
  routesOfConfig,
} from './routing/index.js';
import { type AppContext, NO_DIRECT_ROOM } from './context.js';
import type { Db } from './db/db.js';
import { migrate } from './db/migrate.js';
import { openDb, openReadDb } from './db/openDb.js';
import { replicaIsStandby } from './db/replica.js';
import {
  AnnouncingWakeup,
  deliveryJobs,
  DeliveryWriter,
  Submitter,
  type SubmitterOptions,
  Wakeup,
} from './delivery/index.js';
import { retentionJobs } from './retention/index.js';
import { guardJobs } from './guard/index.js';
import { callbackJobs, CallbackSender, type CallbackSenderOptions, CallbackTargets } from './callbacks/index.js';
import { CascadeProgress, cascadeJobs, cascadesStop } from './cascades/index.js';
import { cascadeRoutes } from './cascades/routes.js';
import { dispatchRoutes } from './dispatches/routes.js';
import { dispatchStatuses } from './dispatches/index.js';
import { idempotencyJobs } from './idempotency/index.js';
import { messageJobs, messagePartitionsEnsure, messageQueueFigures, QueueFloor } from './messages/index.js';
import { Jobs } from './shared/jobs.js';
import { statisticsJobs, statsCleanDayCounts } from './statistics/index.js';
import { wakeAtCommit } from './db/wake.js';
import { DEMO_BOT, type DemoCredentials, demoBanner, ensureDemo, ensureDemoBot } from './demo/index.js';
import { buildServer, closeServer, type Routes } from './http/server.js';
import { adminSessionRoutes } from './http/adminSessionRoutes.js';
import { systemRoutes } from './http/systemRoutes.js';
import { createLimits } from './http/auth.js';
import { Metrics } from './metrics/index.js';
import { opsRoutes } from './metrics/routes.js';
import { createLogger } from './logger.js';
import { lookupRoutes } from './messages/routes.js';
import { estimateRoutes, messageRoutes } from './sending/routes.js';
import { NumberingPlan } from './numbering/index.js';
import { PortedNumbers } from './mnp/index.js';
import { adminMnpRoutes } from './mnp/routes.js';
import { adminSenderNameRoutes, senderNameRoutes } from './senderNames/routes.js';
import { adminStopListRoutes, stopListRoutes } from './stoplists/routes.js';
import { carrierBlocklistSink } from './stoplists/index.js';
import { callbackRoutes } from './callbacks/routes.js';
import { conversionRoutes } from './conversions/routes.js';
import { adminHoldRoutes } from './fraud/routes.js';
import { fraudJobs } from './fraud/index.js';
import { linkRoutes } from './links/routes.js';
import { optOutRoutes, unsubscribeRoutes } from './optout/routes.js';
import { adminTariffRoutes } from './money/routes.js';
import { tariffReplaceFromConfig, Tariffs } from './money/index.js';
import { type EmbeddedSimulators, startEmbeddedSimulators } from './simulators/index.js';
import { simulatorBanner, simulatorRoutes } from './simulators/routes.js';
import { type Clock, systemClock } from './util/clock.js';
import { TemplateMatcher } from './templates/index.js';
import { inboundJobs, receiveInbound, receiveSmsInbound } from './inbound/index.js';
import { statisticsRoutes } from './statistics/routes.js';
import { consentRoutes, refusalRoutes, settingsRoutes } from './guard/routes.js';
import { adminInboundRoutes, inboundRoutes } from './inbound/routes.js';
import { adminTemplateRoutes, templateRoutes } from './templates/routes.js';
import { verificationRoutes, verifierRoutes } from './verify/routes.js';
import { verifyJobs } from './verify/index.js';
import { webRoutes } from './web/routes.js';
import {
  DEFAULT_SMPP_SERVER_OPTIONS,
  receiptLimitsFor,
  SmppServer,
  type SmppServerOptions,
} from './smppServer/index.js';
import { smppRoutes } from './smppServer/routes.js';

/** Stops start-up when the read replica does not answer; warns when it is no standby (a second pool on a primary). */
async function checkReplica(replica: Db, log: Logger): Promise<void> {
  let standby: boolean;
  try {
    standby = await replicaIsStandby(replica);
  } catch (error) {
    throw new ConfigError('HERALD_READ_DATABASE_URL', `the read replica does not answer: ${(error as Error).message}`);
  }
  if (!standby) log.warn('HERALD_READ_DATABASE_URL is not a standby in recovery: its reads go to a primary');
  else log.info('read replica answers: lists, statistics, dispatch and console reads go to it');
}

export const ROLES = ['api', 'worker', 'all'] as const;
export type Role = (typeof ROLES)[number];

/** Every route module of the API, in the order they appear in the reference. */
export const ROUTES: readonly Routes[] = [
  systemRoutes,
  opsRoutes,
  messageRoutes,
  estimateRoutes,
  cascadeRoutes,
  dispatchRoutes,
  verifierRoutes,
  verificationRoutes,
  lookupRoutes({ cascades: { stopCascades: cascadesStop }, rollup: { cleanDayCounts: statsCleanDayCounts } }),
  balanceRoutes,
  adminAccountRoutes,
  adminUserRoutes,
  sessionRoutes,
  adminSessionRoutes,
  apiKeyRoutes,
  senderNameRoutes,
  templateRoutes,
  inboundRoutes,
  statisticsRoutes,
  settingsRoutes,
  consentRoutes,
  refusalRoutes,
  stopListRoutes,
  adminSenderNameRoutes(telegramBotSetup),
  adminTemplateRoutes,
  adminInboundRoutes,
  adminTariffRoutes,
  adminConnectorRoutes({ figures: messageQueueFigures }),
  adminRouteRoutes,
  adminMarginRoutes,
  adminHoldRoutes,
  adminStopListRoutes,
  adminMnpRoutes,
  smppRoutes,
  callbackRoutes,
  conversionRoutes,
  linkRoutes,
  optOutRoutes,
  unsubscribeRoutes,
  webhookRoutes,
  telegramRoutes,
  webRoutes,
];

export interface HeraldOptions {
  readonly config: Config;
  readonly role?: Role;
  readonly clock?: Clock;
  readonly log?: Logger;
  /** An already open database (tests); otherwise opened from the configuration and closed with Herald. */
  readonly db?: Db;
  /** Connectors and routes instead of HERALD_CONFIG (tests). */
  readonly configFile?: ConfigFile;
  readonly submitter?: Partial<SubmitterOptions>;
  /** false: the periodic jobs are built but not started; tests run them with `jobs.run()` (default true). */
  readonly startJobs?: boolean;
  readonly callbackSender?: Partial<CallbackSenderOptions>;
  /** The connectors of `configFile` talk to the caller's simulators (tests): they call Herald back at its address. */
  readonly simulatorCarriers?: boolean;
  /** The SMPP server's tuning (tests); it listens only with HERALD_SMPP_PORT. */
  readonly smppServer?: Partial<SmppServerOptions>;
}

export interface Herald {
  readonly ctx: AppContext;
  /** The API server, for the api and all roles. */
  readonly server: FastifyInstance | undefined;
  /** Where the API listens, e.g. http://127.0.0.1:8080. */
  readonly url: string | undefined;
  /** Where the conversion operation also listens (HERALD_CONVERSION_PORT). */
  readonly conversionUrl: string | undefined;
  readonly demo: DemoCredentials | undefined;
  readonly connectors: readonly Connector[];
  readonly submitter: Submitter | undefined;
  /** The periodic jobs (lifetimes, orphan receipts, retention, rollups, purges), for the worker and all roles. */
  readonly jobs: Jobs | undefined;
  readonly callbackSender: CallbackSender | undefined;
  /** Records this process's connector states for the operator console (worker and all roles). */
  readonly connectorStatus: ConnectorStatusWriter | undefined;
  readonly writer: DeliveryWriter;
  readonly simulators: EmbeddedSimulators | undefined;
  /** Resolves with the number of bots whose webhooks were registered at start (api and all roles). */
  readonly botWebhooks: Promise<number>;
  /** The SMPP server for clients (HERALD_SMPP_PORT, api and all roles). */
  readonly smppServer: SmppServer | undefined;
  close(): Promise<void>;
}

/**
 * The composition root: config -> database -> migrations -> demo account -> simulators -> HTTP server (api role)
 * and connectors, submitter and periodic jobs (worker role); `all` runs both in one process.
 */
export async function startHerald(options: HeraldOptions): Promise<Herald> {
  const { config } = options;
  const role = options.role ?? 'all';
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  // What a pool reports (err says which): an idle connection lost, JIT's setting refused, prepared statements lost.
  const db = options.db ?? (await openDb(config, (error) => log.warn({ err: error }, 'database pool')));
  const ownsDb = options.db === undefined;
  // Only the API reads from the replica: a worker opens no pool to it.
  const replica =
    role === 'worker' ? undefined : openReadDb(config, (error) => log.warn({ err: error }, 'read replica pool'));
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse())
      await close().catch((error: unknown) => log.error({ err: error }, 'shutdown step failed'));
    await replica?.close();
    if (ownsDb) await db.close();
  };

  try {
    const applied = await migrate(db);
    if (applied.length > 0) log.info({ versions: applied }, 'migrations applied');
    // Today's and the next days' partitions of messages, before the first message (then the hourly job keeps them).
    const partitions = await messagePartitionsEnsure(db, clock.now());
    if (partitions.length > 0) log.info({ partitions }, 'message partitions created');
    if (replica) await checkReplica(replica, log);
    const demo = config.demo ? await ensureDemo(db, config, clock) : undefined;
    if (demo && config.simulators) await ensureDemoBot(db, demo.accountId, clock);
    const plan = NumberingPlan.load();

    let simulators: EmbeddedSimulators | undefined;
    let configFile = options.configFile ?? loadConfigFile(config.configFile);
    // The simulators belong with the connectors that talk to them: an api process of split roles has none (its own
    // would be carriers nobody submits to, and a worker's providers would post their status reports to nobody).
    if (config.simulators && role === 'api') {
      log.info('HERALD_SIMULATORS=on: the simulators run in the worker processes, with their controls');
    } else if (config.simulators) {
      simulators = await startEmbeddedSimulators({
        delayMs: config.simDelayMs,
        telegramBots: { [DEMO_BOT.token]: DEMO_BOT.name },
      });
      closers.push(() => simulators!.stop());
      // The simulators stand in for carriers unless the config file names real ones.
      if (configFile.connectors.length === 0) configFile = { ...simulators.configFile, tariffs: configFile.tariffs };
    }

    // Tariffs of the config file replace the previous file's at every start: the file stays their one source.
    await db.transaction((tx) =>
      tariffReplaceFromConfig(
        tx,
        configFile.tariffs.map((t) => ({
          accountId: t.accountId ?? null,
          channelType: t.channelType,
          prefix: t.prefix ?? null,
          country: t.country ?? null,
          price: t.price,
          currency: t.currency,
          now: clock.now(),
        })),
      ),
    );
    // Routes are the database's (DESIGN 21): the config file's seed the table on the first start only.
    const seeded = await db.transaction((tx) => routeSeed(tx, routesOfConfig(configFile.routes), clock.now()));
    if (seeded > 0) log.info({ routes: seeded }, 'routes seeded from HERALD_CONFIG');
    // Workers' statements give way to requests' on the embedded database (db.ts background()).
    const workDb = db.background?.() ?? db;
    const routeBook = new RouteBook(workDb, connectorDeliveryRates);
    await routeBook.load();
    const outcomes = new ConnectorOutcomes();
    const tuning = config.workers;
    // Cascades move on in the transactions that record their steps' outcomes (it needs the context built below).
    const cascadeProgress = new CascadeProgress(() => ctx, dispatchStatuses);
    const writer = new DeliveryWriter(
      workDb,
      log,
      { maxBatch: tuning.writerBatch, lingerMs: tuning.writerLingerMs },
      clock,
      cascadeProgress,
    );
    // An api process announces stored messages to the workers of other processes (db/wake.ts); a process with a
    // submitter wakes its own, which claims them (other processes' workers are told nothing: no notification).
    const wakeup =
      role === 'api'
        ? new AnnouncingWakeup(
            clock,
            () => wakeAtCommit(db, 'messages'),
            (error) => log.warn({ err: error }, 'announcing stored messages to the workers failed'),
          )
        : new Wakeup(clock);
    // Receipts are recorded by the writer; those of the carriers' blocklist codes also list their numbers.
    // Receipts are counted for the routes' quality floors (connector_outcomes) as they come.
    const receiptSink = carrierBlocklistSink(
      { db: workDb, clock, log },
      blocklistCodesOf(configFile.connectors),
      (r) => {
        outcomes.count(r);
        return writer.receipts(r);
      },
    );
    const connectors =
      role === 'api'
        ? []
        : buildConnectors(
            configFile.connectors,
            receiptSink,
            log,
            clock,
            (connectorId, messages) =>
              // ctx exists by the time an SMSC delivers anything (connectors start after it is built).
              receiveSmsInbound(ctx, connectorId, messages),
            new TelegramChatDirectory(workDb, clock),
          );
    let submitter: Submitter | undefined;
    let routeChanged = (): void => undefined;
    let callbackSender: CallbackSender | undefined;
    const connectorStates = () => connectors.map((c) => c.state());
    const leaseMs = config.leaseSeconds * 1000;
    // One lease for claimed messages and those this process's API hands over directly (tests may shorten it).
    const submitterOptions: SubmitterOptions = {
      batchSize: tuning.dispatchBatch,
      leaseMs,
      pollMs: tuning.dispatchPollMs,
      maxInFlight: tuning.dispatchMaxInFlight,
      channelInFlight: tuning.dispatchChannelInFlight,
      urgentPercent: tuning.dispatchUrgentPercent,
      noRouteRetryMs: tuning.noRouteRetryMs,
      ...options.submitter,
    };
    // One reader of the queue's floor a process (a minute's read serves all): the queue's metrics, and in a worker the
    // claim and the expiry job.
    const floor = new QueueFloor(clock, (found, message) => log.warn(found, message));
    const metrics = new Metrics({
      db,
      replica,
      clock,
      floor,
      writer,
      connectors: connectorStates,
      callbackSender: () => callbackSender,
      submitter: () => submitter,
    });
    const ctx: AppContext = {
      config,
      configFile,
      db,
      readDb: replica ?? db,
      clock,
      log,
      adminToken: config.adminToken ?? demo?.adminToken,
      plan,
      ported: new PortedNumbers(),
      tariffs: new Tariffs(db),
      routeBook,
      templates: new TemplateMatcher(db),
      callbackTargets: new CallbackTargets(config.callbackUrlsPerDay),
      wakeup,
      receiptSink,
      inboundSink: (connectorId, messages) => receiveInbound(ctx, connectorId, messages),
      connectorStates,
      selfCallbackUrl: { value: undefined },
      metrics,
      limits: createLimits(config, metrics, clock),
      passwords: new PasswordHasher(config.passwordHashConcurrency, config.passwordHashQueue, {
        ...SCRYPT_PARAMS,
        N: 2 ** config.passwordScryptCost,
      }),
      directSubmit:
        role !== 'api'
          ? {
              open: () => submitter?.directRoom() ?? NO_DIRECT_ROOM,
              leaseMs: submitterOptions.leaseMs,
            }
          : undefined,
    };
    closers.push(() => writer.drain());

    let jobs: Jobs | undefined;
    let connectorStatus: ConnectorStatusWriter | undefined;
    if (role !== 'api') {
      if (configFile.connectors.length === 0)
        log.warn('no connectors configured: messages wait in the queue until their deadline');
      for (const connector of connectors) await connector.start();
      closers.push(async () => {
        await Promise.all(connectors.map((c) => c.stop()));
      });
      // Stopped before the connectors (closers run last first): it removes this process's rows on the way out.
      connectorStatus = new ConnectorStatusWriter({ db: workDb, clock, log, states: ctx.connectorStates, outcomes });
      connectorStatus.start();
      closers.push(() => connectorStatus!.stop());
      const routeWatcher = new RouteBookWatcher(routeBook, { clock, log });
      routeWatcher.start();
      closers.push(() => routeWatcher.stop());
      routeChanged = () => routeWatcher.changed();
      writer.onRerouted = () => wakeup.notify();
      submitter = new Submitter(
        {
          db: workDb,
          clock,
          log,
          routes: routeBook,
          connectors: new Map(connectors.map((c) => [c.id, c])),
          writer,
          plan,
          wakeup,
          floor,
        },
        submitterOptions,
      );
      const retention = config.retentionDays !== undefined ? { retentionDays: config.retentionDays } : {};
      const jobDeps = { db: workDb, clock, log };
      // Writes and wake-ups: while their count stands still, a quiet job rests (shared/jobs.ts).
      const activity = (): number => writer.stats.flushes + wakeup.notifies;
      jobs = new Jobs({ clock, log, activity }, [
        ...deliveryJobs({ ...jobDeps, hooks: cascadeProgress, floor }),
        ...retentionJobs(jobDeps, config.retentionDays),
        ...cascadeJobs({ ...jobDeps, progress: cascadeProgress }, retention),
        ...statisticsJobs(jobDeps, retention),
        ...idempotencyJobs(jobDeps),
        ...guardJobs(jobDeps),
        ...messageJobs(jobDeps),
        ...callbackJobs(jobDeps),
        ...verifyJobs(jobDeps),
        ...fraudJobs(jobDeps),
        ...statusPollJobs({ db: workDb, clock, connectors, receiptSink: ctx.receiptSink }),
        ...inboundJobs(ctx, {
          partsWaitMs: config.inboundPartsWaitSeconds * 1000,
          sweepEveryMs: config.inboundPartsSweepSeconds * 1000,
        }),
      ]);
      callbackSender = new CallbackSender(
        { db: workDb, clock, log },
        {
          timeoutMs: tuning.callbackTimeoutMs,
          maxInFlight: tuning.callbackMaxInFlight,
          perHost: tuning.callbackPerHost,
          pollMs: tuning.callbackPollMs,
          breakerFailures: tuning.callbackBreakerFailures,
          breakerOpenMs: tuning.callbackBreakerOpenMs,
          retryIntervalS: config.callbackRetryIntervalS,
          retryWindowS: config.callbackRetryWindowS,
          allowPrivate: config.callbackAllowPrivate,
          leaseMs,
          ...options.callbackSender,
        },
      );
      // Other processes' work (and this one's, heard the same way) wakes the loops at its commit (db/wake.ts).
      const sender = callbackSender;
      const unlisten = await db.listenWakeups({
        onWake: (topic) => {
          if (topic === 'callbacks') sender.poke();
          else if (topic === 'routes') routeChanged();
          else if (topic === 'messages') wakeup.notify();
          // 'receipts' is the SMPP servers' (they listen for it themselves): a claim for it would find nothing.
        },
        onListening: () => {
          wakeup.notify();
          sender.poke();
        },
        onLost: (error) => log.warn({ err: error }, 'the wake-up listener lost its connection; connecting again'),
      });
      closers.push(unlisten);
      submitter.start();
      if (options.startJobs !== false) jobs.start();
      callbackSender.start();
      closers.push(() => callbackSender!.stop());
      closers.push(() => jobs!.stop());
      // Stop claiming and hand back what waits for a connector's window; what is already sent finishes.
      closers.push(() => submitter!.stop(() => connectors.forEach((c) => c.release())));
    }

    // A worker serves only the operations endpoints (metrics, health) on HERALD_PORT. With its simulators on,
    // Herald serves their control endpoints too, where a demo user finds them, and a worker the carrier webhooks its
    // simulated providers post their status reports and inbound messages to.
    const simulatorApi = simulators ? [simulatorRoutes(simulators)] : [];
    const server = await buildServer(
      ctx,
      role === 'worker'
        ? [systemRoutes, opsRoutes, ...(simulators ? [webhookRoutes, telegramRoutes] : []), ...simulatorApi]
        : [...ROUTES, ...simulatorApi],
    );
    const url = (await server.listen({ host: config.host, port: config.port })).replace('[::1]', 'localhost');
    // Stop taking requests first, before the workers and the database behind them.
    closers.push(() => closeServer(server));
    simulators?.connectWebhooks(url);
    // Carriers that are simulators call Herald back at its own address; real ones need publicUrl.
    if (config.simulators || options.simulatorCarriers) {
      ctx.selfCallbackUrl.value = url;
      for (const connector of connectors) connector.defaultPublicUrl?.(url);
    }
    for (const connector of connectors) {
      const missing = connector.publicUrlMissing?.();
      if (missing) log.warn({ connector: connector.id }, missing);
    }
    const botConnector = botConnectorOf(configFile.connectors);
    const servesBots = role !== 'worker' || simulators !== undefined;
    const botsUrl = botConnector && botsPublicUrl(ctx, botConnector);
    if (botConnector && servesBots && !botsUrl) {
      log.warn(
        { connector: botConnector.id },
        'telegram-bot connector without publicUrl: no bot webhook is registered, so no subscriber can link a number',
      );
    }
    // In the background: a Bot API that does not answer must not hold the start (each bot is logged if refused).
    const botWebhooks =
      botConnector && servesBots && botsUrl
        ? botWebhooksRegisterAll(db, botConnector, botsUrl, log).catch((error: unknown) => {
            log.warn({ err: error }, 'registering the bots webhooks failed');
            return 0;
          })
        : Promise.resolve(0);
    if (role === 'worker' && simulators) process.stdout.write(`${simulatorBanner(url).join('\n')}\n\n`);
    let conversionUrl: string | undefined;
    let smppServer: SmppServer | undefined;
    if ((role === 'api' || role === 'all') && config.smppPort !== undefined) {
      smppServer = new SmppServer(
        ctx,
        {
          ...DEFAULT_SMPP_SERVER_OPTIONS,
          host: config.host,
          port: config.smppPort,
          tls: config.smppTls,
          rateLimit: config.smppRateLimit,
          window: config.smppWindow,
          ...receiptLimitsFor(config.smppWindow),
          leaseMs,
          ...options.smppServer,
        },
        { stopCascades: cascadesStop },
      );
      await smppServer.start();
      // Closers run last first: its binds are unbound before the HTTP server and the workers stop.
      closers.push(() => smppServer!.stop());
      log.info({ port: smppServer.port, tls: config.smppTls !== undefined }, 'SMPP server for clients listening');
    }
    if (role === 'api' || role === 'all') {
      if (config.conversionPort !== undefined) {
        // The conversion operation has a base address of its own ({conversion_url} in the spec).
        const conversionServer = await buildServer(ctx, [systemRoutes, conversionRoutes]);
        conversionUrl = await conversionServer.listen({ host: config.host, port: config.conversionPort });
        closers.push(() => closeServer(conversionServer));
      }
      const banner = [
        ...(demo ? [demoBanner(demo, url, config.adminToken !== undefined, config.simulators)] : []),
        ...(simulators ? simulatorBanner(url, demo?.inboundNumber) : []),
      ];
      if (banner.length > 0) process.stdout.write(`${banner.join('\n')}\n\n`);
    }

    return {
      ctx,
      server,
      url,
      conversionUrl,
      demo,
      connectors,
      submitter,
      jobs,
      callbackSender,
      connectorStatus,
      writer,
      simulators,
      botWebhooks,
      smppServer,
      close: closeAll,
    };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}
