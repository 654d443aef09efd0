import type { Clock } from '../../util/clock.js';
import type { ProviderConnectorConfig, ProviderType } from '../connectorConfig.js';
import type { CarrierReceipt, OutboundMessage, ReceiptState } from '../connector.js';
import { isPlainObject } from '../../shared/text.js';
import { HttpConnector, type ProviderRequest } from './httpConnector.js';

const CHANNEL_OF = { viber: 'VIBER', vk: 'VK', flashcall: 'FLASHCALL', voicecode: 'VOICECODE' } as const;

/**
 * VIBER, VK, FLASHCALL and VOICECODE providers, in Herald's provider adapter format (docs/connectors.md):
 * `POST {baseUrl}{path}` with `Authorization: Bearer <apiKey>`, a JSON body per channel, `{"id"}` back; errors as
 * `{"error": {"code", "message"}}`. Statuses come to `/webhooks/{connector id}` signed with X-Signature.
 */
export class ProviderConnector extends HttpConnector {
  readonly type: ProviderType;
  readonly channel: (typeof CHANNEL_OF)[ProviderType];

  constructor(
    private readonly config: ProviderConnectorConfig,
    clock?: Clock,
  ) {
    super(config.id, config.baseUrl, config, clock);
    this.type = config.type;
    this.channel = CHANNEL_OF[config.type];
  }

  protected request(message: OutboundMessage): ProviderRequest {
    return {
      path: PROVIDER_PATHS[this.type],
      headers: { authorization: `Bearer ${this.config.apiKey}` },
      body: providerBody(this.type, message),
    };
  }

  protected carrierId(body: unknown): string | undefined {
    return isPlainObject(body) && typeof body.id === 'string' && body.id !== '' ? body.id : undefined;
  }

  protected errorCode(body: unknown): number | undefined {
    const code = isPlainObject(body) && isPlainObject(body.error) ? body.error.code : undefined;
    return typeof code === 'number' ? code : undefined;
  }
}

export const PROVIDER_PATHS: Readonly<Record<ProviderType, string>> = {
  viber: '/viber/messages',
  vk: '/vk/messages',
  flashcall: '/flashcall/calls',
  voicecode: '/voice/calls',
};

/** The request body of each provider type. */
export function providerBody(type: ProviderType, message: OutboundMessage): Record<string, unknown> {
  const content = message.content as Record<string, unknown>;
  switch (type) {
    case 'viber':
      return { from: message.senderName, to: message.destination, ttl: message.ttlSeconds, content };
    case 'vk':
      return { group: message.senderName, phone: message.destination, text: message.content, ttl: message.ttlSeconds };
    case 'flashcall':
      return { phone: message.destination, code: message.content, callerName: message.senderName };
    case 'voicecode':
      return {
        phone: message.destination,
        text: content.text,
        externalId: message.externalMessageId,
        ttl: message.ttlSeconds,
      };
  }
}

const PROVIDER_STATES: Readonly<Record<string, ReceiptState>> = {
  delivered: 'delivered',
  undelivered: 'undelivered',
  rejected: 'unsent',
  read: 'read',
};

/** Reads a provider status webhook: `{"statuses": [{"id", "status", "timestamp", "errorCode"?}]}`. */
export function parseProviderWebhook(connectorId: string, payload: unknown): CarrierReceipt[] {
  const statuses = isPlainObject(payload) && Array.isArray(payload.statuses) ? payload.statuses : [];
  const receipts: CarrierReceipt[] = [];
  for (const status of statuses) {
    if (!isPlainObject(status) || typeof status.id !== 'string') continue;
    const state = PROVIDER_STATES[String(status.status)];
    if (!state) continue;
    const at = typeof status.timestamp === 'string' ? new Date(status.timestamp) : new Date();
    receipts.push({
      connectorId,
      carrierId: status.id,
      state,
      at: Number.isNaN(at.getTime()) ? new Date() : at,
      errorCode: typeof status.errorCode === 'number' ? status.errorCode : null,
    });
  }
  return receipts;
}
