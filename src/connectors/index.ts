/** What other parts of Herald may use of connectors/; everything else in the folder is its own. */
export type {
  Connector,
  ConnectorState,
  InboundMessage,
  InboundSink,
  OutboundMessage,
  ReceiptSink,
  SubmitOutcome,
  TelegramChats,
} from './connector.js';
export {
  blocklistCodesOf,
  CONNECTOR_CHANNEL,
  connectorChannel,
  PROVIDER_TYPES,
  ProviderConnectorSchema,
  RouteSchema,
  SmppConnectorSchema,
  SmppTlsSchema,
  TELEGRAM_BOT_API_URL,
  TelegramBotConnectorSchema,
  TelegramGatewayConnectorSchema,
  WhatsappConnectorSchema,
} from './connectorConfig.js';
export {
  compileHttpConnector,
  HttpConnectorConfigError,
  HttpConnectorSchema,
} from './http/declarative/httpConnectorConfig.js';
export type {
  ConnectorConfig,
  HttpConnectorConfig,
  RouteConfig,
  SmppConnectorConfig,
  TelegramBotConnectorConfig,
  TelegramGatewayConnectorConfig,
} from './connectorConfig.js';
export { connectorsUp, ConnectorStatusWriter } from './connectorStatus.js';
export { ConnectorOutcomes, connectorDeliveryRates } from './connectorOutcomes.js';
export { PROFILES_DIR, ProfileError, withProfile } from './http/declarative/profiles.js';
export { statusPollJobs } from './statusPolls.js';
export { botApiCall, botWebhookSecret, botWebhookSecretValid } from './http/telegramApi.js';
export { buildConnectors } from './buildConnectors.js';
export { corkUntilNextTick } from './smpp/corkedWrites.js';
export { receiptFields, receiptTlvs, ShortMessagePdu, ShortMessageResp } from './smpp/hotPdus.js';
export { smsPdus } from './smpp/smppMessage.js';
export { moPartOf } from './smpp/moParts.js';
export type { MoPart } from './smpp/moParts.js';
export type { ShortMessageFields, Tlv } from './smpp/hotPdus.js';
export type { CarrierReceipt, ReceiptState } from './connector.js';
export type { SmsInbound, SmsInboundSink } from './smpp/smppDeliveries.js';
