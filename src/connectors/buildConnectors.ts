import type { Logger } from 'pino';
import type { ConnectorConfig, SmppConnectorConfig } from './connectorConfig.js';
import type { Clock } from '../util/clock.js';
import type { Connector, ReceiptSink, TelegramChats } from './connector.js';
import { ProviderConnector } from './http/providerConnector.js';
import { TelegramBotConnector } from './http/telegramBotConnector.js';
import { TelegramGatewayConnector } from './http/telegramGatewayConnector.js';
import { DeclarativeConnector } from './http/declarative/declarativeConnector.js';
import { compileHttpConnector } from './http/declarative/httpConnectorConfig.js';
import { WhatsappConnector } from './http/whatsappConnector.js';
import { SmppConnector } from './smpp/smppConnector.js';
import type { SmsInboundSink } from './smpp/smppDeliveries.js';

/** Builds the configured connectors; none is started yet. */
export function buildConnectors(
  configs: readonly ConnectorConfig[],
  sink: ReceiptSink,
  log: Logger,
  clock: Clock,
  smsInbound?: SmsInboundSink,
  telegramChats?: TelegramChats,
): Connector[] {
  return configs.map((config) => buildConnector(config, sink, log, clock, smsInbound, telegramChats));
}

function buildConnector(
  config: ConnectorConfig,
  sink: ReceiptSink,
  log: Logger,
  clock: Clock,
  smsInbound: SmsInboundSink | undefined,
  telegramChats: TelegramChats | undefined,
): Connector {
  switch (config.type) {
    case 'smpp':
      return new SmppConnector(config as SmppConnectorConfig, sink, log, clock, smsInbound);
    case 'whatsapp':
      return new WhatsappConnector(config, clock);
    case 'telegram-bot':
      if (!telegramChats) throw new Error(`connector ${config.id}: telegram-bot needs the chats of telegram/`);
      return new TelegramBotConnector(config, telegramChats, clock);
    case 'telegram-gateway':
      return new TelegramGatewayConnector(config, clock);
    case 'http':
      return new DeclarativeConnector(compileHttpConnector(config, config.id), config, clock, config.publicUrl);
    default:
      return new ProviderConnector(config, clock);
  }
}
