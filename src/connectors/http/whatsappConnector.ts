import type { Clock } from '../../util/clock.js';
import type { WhatsappConnectorConfig } from '../connectorConfig.js';
import type { CarrierReceipt, InboundMessage, OutboundMessage } from '../connector.js';
import { isPlainObject } from '../../shared/text.js';
import { HttpConnector, type ProviderRequest } from './httpConnector.js';

/**
 * WHATSAPP over the WhatsApp Business Cloud API: `POST {baseUrl}/{phone-number-id}/messages` with a Bearer access
 * token; the answer's `messages[0].id` (wamid) is the carrier id. Status webhooks come to
 * `/webhooks/{connector id}`, signed with the app secret (X-Hub-Signature-256). See docs/connectors.md.
 */
export class WhatsappConnector extends HttpConnector {
  readonly type = 'whatsapp';
  readonly channel = 'WHATSAPP' as const;

  constructor(
    private readonly config: WhatsappConnectorConfig,
    clock?: Clock,
  ) {
    super(config.id, config.baseUrl, config, clock);
  }

  protected request(message: OutboundMessage): ProviderRequest {
    return {
      path: `/${encodeURIComponent(this.config.phoneNumberId)}/messages`,
      headers: { authorization: `Bearer ${this.config.accessToken}` },
      body: {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: message.destination,
        ...whatsappPayload(message.content),
      },
    };
  }

  protected carrierId(body: unknown): string | undefined {
    const id =
      isPlainObject(body) && Array.isArray(body.messages) && isPlainObject(body.messages[0])
        ? body.messages[0].id
        : undefined;
    return typeof id === 'string' ? id : undefined;
  }

  protected errorCode(body: unknown): number | undefined {
    const code = isPlainObject(body) && isPlainObject(body.error) ? body.error.code : undefined;
    return typeof code === 'number' ? code : undefined;
  }
}

type Content = Record<string, unknown> & {
  contentType: 'text' | 'image' | 'document';
  header?: { text?: string; documentUrl?: string; documentName?: string; imageUrl?: string };
  footer?: { text: string };
  buttons?: { text: string; url?: string; phone?: string; payload?: string }[];
};

/**
 * Herald's WHATSAPP content as a Cloud API message: plain text, image and document messages; with a header,
 * footer or buttons, an interactive message (`button` with reply buttons for text buttons, `cta_url` for a link
 * button; a phone button becomes a `tel:` link, as free-form messages have no call button).
 */
export function whatsappPayload(value: unknown): Record<string, unknown> {
  const content = value as Content;
  const decorated = content.header || content.footer || content.buttons;
  if (!decorated) {
    if (content.contentType === 'text') return { type: 'text', text: { body: content.text, preview_url: true } };
    if (content.contentType === 'image')
      return { type: 'image', image: { link: content.imageUrl, caption: content.imageName } };
    return { type: 'document', document: { link: content.documentUrl, filename: content.documentName } };
  }
  const header = headerOf(content);
  const body = { text: content.contentType === 'text' ? content.text : (content.imageName ?? content.documentName) };
  const footer = content.footer ? { text: content.footer.text } : undefined;
  const buttons = content.buttons ?? [];
  const replies = buttons.filter((b) => b.payload !== undefined);
  const interactive: Record<string, unknown> = header ? { header, body } : { body };
  if (footer) interactive.footer = footer;
  if (replies.length > 0) {
    interactive.type = 'button';
    interactive.action = { buttons: replies.map((b) => ({ type: 'reply', reply: { id: b.payload, title: b.text } })) };
  } else if (buttons.length > 0) {
    const link = buttons.find((b) => b.url) ?? buttons[0]!;
    interactive.type = 'cta_url';
    interactive.action = {
      name: 'cta_url',
      parameters: { display_text: link.text, url: link.url ?? `tel:+${link.phone}` },
    };
  } else {
    interactive.type = 'button';
    interactive.action = { buttons: [] };
  }
  return { type: 'interactive', interactive };
}

function headerOf(content: Content): Record<string, unknown> | undefined {
  const h = content.header;
  if (h?.text) return { type: 'text', text: h.text };
  if (h?.imageUrl) return { type: 'image', image: { link: h.imageUrl } };
  if (h?.documentUrl) return { type: 'document', document: { link: h.documentUrl, filename: h.documentName } };
  if (content.contentType === 'image') return { type: 'image', image: { link: content.imageUrl } };
  if (content.contentType === 'document')
    return { type: 'document', document: { link: content.documentUrl, filename: content.documentName } };
  return undefined;
}

const WHATSAPP_STATES = { delivered: 'delivered', read: 'read', failed: 'undelivered' } as const;

/**
 * Reads a Cloud API webhook: status changes as receipts (`sent` is not a final fact and is skipped), and inbound
 * messages.
 */
export function parseWhatsappWebhook(
  connectorId: string,
  payload: unknown,
): { receipts: CarrierReceipt[]; inbound: InboundMessage[] } {
  const receipts: CarrierReceipt[] = [];
  const inbound: InboundMessage[] = [];
  const entries = isPlainObject(payload) && Array.isArray(payload.entry) ? payload.entry : [];
  for (const entry of entries) {
    const changes = isPlainObject(entry) && Array.isArray(entry.changes) ? entry.changes : [];
    for (const change of changes) {
      const value = isPlainObject(change) && isPlainObject(change.value) ? change.value : undefined;
      if (!value) continue;
      const metadata = isPlainObject(value.metadata) ? value.metadata : {};
      for (const status of Array.isArray(value.statuses) ? value.statuses : []) {
        if (!isPlainObject(status) || typeof status.id !== 'string' || typeof status.status !== 'string') continue;
        const state = WHATSAPP_STATES[status.status as keyof typeof WHATSAPP_STATES];
        if (!state) continue;
        const firstError =
          Array.isArray(status.errors) && isPlainObject(status.errors[0]) ? status.errors[0] : undefined;
        receipts.push({
          connectorId,
          carrierId: status.id,
          state,
          at: unixTime(status.timestamp),
          errorCode: typeof firstError?.code === 'number' ? firstError.code : null,
        });
      }
      for (const message of Array.isArray(value.messages) ? value.messages : []) {
        if (!isPlainObject(message) || typeof message.from !== 'string' || typeof message.id !== 'string') continue;
        const text = isPlainObject(message.text) && typeof message.text.body === 'string' ? message.text.body : '';
        inbound.push({
          from: message.from,
          id: message.id,
          timestamp: unixTime(message.timestamp),
          text,
          phoneNumberId: typeof metadata.phone_number_id === 'string' ? metadata.phone_number_id : undefined,
          displayName: typeof metadata.display_phone_number === 'string' ? metadata.display_phone_number : undefined,
        });
      }
    }
  }
  return { receipts, inbound };
}

function unixTime(value: unknown): Date {
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : new Date();
}
