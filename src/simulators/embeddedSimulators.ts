import type { Clock } from '../util/clock.js';
import { randomBytes } from 'node:crypto';
import type { ConfigFile } from '../config/index.js';
import { type ConnectorConfig, type RouteConfig, withProfile } from '../connectors/index.js';
import { ProviderSimulator, type SimChannel } from './providerSimulator.js';
import { SmscSimulator } from './smscSimulator.js';
import { TelegramSimulator } from './telegramSimulator.js';

export interface EmbeddedSimulators {
  readonly smsc: SmscSimulator;
  readonly providers: ProviderSimulator;
  /** Telegram's Bot API and Gateway API. */
  readonly telegram: TelegramSimulator;
  /** Connectors and routes for every channel, pointing at the simulators. */
  readonly configFile: ConfigFile;
  /** Tells the provider simulator where Herald takes webhooks (known once the API listens). */
  connectWebhooks(apiUrl: string): void;
  stop(): Promise<void>;
}

export const SIM_CONNECTOR_IDS = {
  SMS: 'sim-smsc',
  WHATSAPP: 'sim-whatsapp',
  VIBER: 'sim-viber',
  VK: 'sim-vk',
  FLASHCALL: 'sim-flashcall',
  VOICECODE: 'sim-voicecode',
} as const;

/** The channels of Herald's provider adapter format, sent by declarative connectors of the profiles herald-<type>. */
const HERALD_FORMAT_TYPES = ['viber', 'vk', 'flashcall', 'voicecode'] as const;

/** TELEGRAM's two connectors: texts by the Bot API, codes by the Gateway API (one route holds both). */
export const SIM_TELEGRAM_IDS = { bot: 'sim-telegram-bot', gateway: 'sim-telegram-gateway' } as const;

/**
 * Starts the SMSC and the HTTP provider simulators on loopback ports and describes Herald's connectors to them,
 * as an operator's config file would, its profiles completing their connectors as they do an operator's. Real peers:
 * Herald reaches them only through sockets. VIBER, VK, FLASHCALL and VOICECODE go through declarative connectors of
 * the profiles herald-<type> (DESIGN 19), so that the demo and the tests run the path operators' providers take.
 */
export async function startEmbeddedSimulators(options: {
  delayMs: number;
  window?: number;
  mps?: number;
  /** The clock of the simulated delays: a test's lets the test jump over them. */
  clock?: Clock;
  /** Bots the Telegram simulator knows at start: token -> username (the demo's); tests add theirs later. */
  telegramBots?: Readonly<Record<string, string>>;
  /** false: TELEGRAM numbers must link by sharing their contact, as with the real Bot API (default true). */
  simulatedTelegramLinks?: boolean;
}): Promise<EmbeddedSimulators> {
  const secret = randomBytes(16).toString('hex');
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const smsc = new SmscSimulator({
    systemId: 'herald',
    password: secret.slice(0, 8),
    delayMs: options.delayMs,
    ...clock,
  });
  const providers = new ProviderSimulator({
    delayMs: options.delayMs,
    apiKey: secret,
    phoneNumberId: '100000001',
    ...clock,
  });
  const telegram = new TelegramSimulator({
    delayMs: options.delayMs,
    bots: options.telegramBots ?? {},
    gatewayToken: secret,
    ...clock,
  });
  await smsc.start();
  await providers.start();
  await telegram.start();
  const flow = { window: options.window ?? 200, mps: options.mps ?? 20_000 };
  const connectors: unknown[] = [
    {
      id: SIM_CONNECTOR_IDS.SMS,
      type: 'smpp',
      host: '127.0.0.1',
      port: smsc.port,
      systemId: 'herald',
      password: secret.slice(0, 8),
      systemType: 'herald',
      enquireLinkSeconds: 30,
      responseTimeoutSeconds: 10,
      reconnectMinMs: 200,
      reconnectMaxMs: 5000,
      ...flow,
    },
    {
      id: SIM_CONNECTOR_IDS.WHATSAPP,
      type: 'whatsapp',
      baseUrl: `${providers.url}/whatsapp`,
      phoneNumberId: '100000001',
      accessToken: secret,
      appSecret: secret,
      timeoutSeconds: 15,
      breakerFailures: 5,
      breakerOpenSeconds: 30,
      ...flow,
    },
    ...HERALD_FORMAT_TYPES.map((type) => ({
      id: `sim-${type}`,
      type: 'http',
      profile: `herald-${type}`,
      baseUrl: providers.url,
      secrets: { API_KEY: secret, WEBHOOK: secret },
      timeoutSeconds: 15,
      breakerFailures: 5,
      breakerOpenSeconds: 30,
      ...flow,
    })),
    {
      id: SIM_TELEGRAM_IDS.bot,
      type: 'telegram-bot',
      baseUrl: telegram.botApiUrl,
      // Every number counts as linked to every bot here (DESIGN 18); the public address is Herald's, once it listens.
      simulatedLinks: options.simulatedTelegramLinks ?? true,
      timeoutSeconds: 15,
      breakerFailures: 5,
      breakerOpenSeconds: 30,
      ...flow,
    },
    {
      id: SIM_TELEGRAM_IDS.gateway,
      type: 'telegram-gateway',
      baseUrl: telegram.gatewayUrl,
      token: secret,
      timeoutSeconds: 15,
      breakerFailures: 5,
      breakerOpenSeconds: 30,
      ...flow,
    },
  ];
  const routes: RouteConfig[] = [
    ...Object.entries(SIM_CONNECTOR_IDS).map(([channel, id]) => ({
      channel: channel as RouteConfig['channel'],
      prefixes: [],
      connectors: [id],
    })),
    { channel: 'TELEGRAM', prefixes: [], connectors: [SIM_TELEGRAM_IDS.bot, SIM_TELEGRAM_IDS.gateway] },
  ];
  return {
    smsc,
    providers,
    telegram,
    // The herald-<type> profiles complete their connectors, as they would an operator's HERALD_CONFIG.
    configFile: { connectors: connectors.map((c) => withProfile(c) as ConnectorConfig), routes, tariffs: [] },
    connectWebhooks(apiUrl) {
      for (const [channel, id] of Object.entries(SIM_CONNECTOR_IDS)) {
        if (channel === 'SMS') continue;
        // Declarative connectors take their reports at /webhooks/http/{id}; WhatsApp's built-in one at /webhooks/{id}.
        const path = channel === 'WHATSAPP' ? `/webhooks/${id}` : `/webhooks/http/${id}`;
        providers.setWebhook(channel as SimChannel, { url: `${apiUrl}${path}`, secret });
      }
    },
    async stop() {
      await Promise.all([smsc.stop(), providers.stop(), telegram.stop()]);
    },
  };
}
