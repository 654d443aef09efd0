import type { Logger } from 'pino';
import type { ConnectorConfig, SmppConnectorConfig } from './connectorConfig.js';
import type { Clock } from '../util/clock.js';
import type { Connector, ReceiptSink } from './connector.js';
import { ProviderConnector } from './http/providerConnector.js';
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
): Connector[] {
  return configs.map((config) => buildConnector(config, sink, log, clock, smsInbound));
}

function buildConnector(
  config: ConnectorConfig,
  sink: ReceiptSink,
  log: Logger,
  clock: Clock,
  smsInbound: SmsInboundSink | undefined,
): Connector {
  switch (config.type) {
    case 'smpp':
      return new SmppConnector(config as SmppConnectorConfig, sink, log, clock, smsInbound);
    case 'whatsapp':
      return new WhatsappConnector(config, clock);
    default:
      return new ProviderConnector(config, clock);
  }
}
