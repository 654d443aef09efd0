import type { Answer, RequestBody } from '../shared/apiClient.js';
import { explainApiError } from '../shared/errorWords.js';
import { formatAmount } from '../shared/format.js';
import { t } from '../shared/i18n/index.js';
import { useAsync } from '../shared/ui.js';
import { traffic } from './session.js';

/*
 * Parts and price before sending (issue 34, problems 4 and 6): the API counts the parts by the rules the SMSC gets
 * them by (POST /api/v1/message/estimate: GSM 03.38 with its extension table, else UCS-2; 160/70 in one part, 153/67
 * each in a long message) and prices them by the account's tariffs, so that the pages never count on their own.
 */

export type EstimateRequest = RequestBody<'/api/v1/message/estimate', 'post'>;
export type Estimate = Answer<'/api/v1/message/estimate', 'post'>;
export type EstimateItem = Estimate['items'][number];
export type EstimateChannel = EstimateRequest['channelType'];

/** Items per estimate call, as the API takes them. */
export const MAX_ESTIMATE = 1000;
/** Typing pauses this long before the page asks again: one call per pause, not one per key. */
const TYPING_PAUSE_MS = 300;

/** An item of an estimate: its figures, or the error a send would refuse it with. */
export const isPriced = (item: EstimateItem): item is Extract<EstimateItem, { parts: number }> => 'parts' in item;

/** Resolves after `ms`, or rejects when the signal aborts (a newer call supersedes this one). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('superseded', 'AbortError'));
    });
  });
}

/**
 * The estimate of one message as its form is filled in: asked again a pause after each change of the channel, the
 * destination or the text; undefined while the text is empty.
 */
export function useMessageEstimate(channel: EstimateChannel, destination: string, text: string) {
  const trimmed = destination.trim();
  return useAsync(
    async (signal) => {
      if (channel === 'SMS' && text === '') return undefined;
      await pause(TYPING_PAUSE_MS, signal);
      return traffic.post('/api/v1/message/estimate', {
        body: {
          channelType: channel,
          items: [{ ...(trimmed ? { destination: trimmed } : {}), ...(channel === 'SMS' ? { text } : {}) }],
        },
        signal,
      });
    },
    [channel, trimmed, text],
  );
}

/** "2 SMS parts · GSM-7 · 170 of 306 characters" for an SMS, "1 message" for another channel. */
export function partsText(item: Extract<EstimateItem, { parts: number }>): string {
  if (item.encoding === null) return t('estimate.oneMessage');
  return t('estimate.parts', {
    parts: item.parts,
    encoding: t(item.encoding === 'gsm7' ? 'estimate.gsm7' : 'estimate.ucs2'),
    characters: item.characters ?? 0,
    capacity: item.parts * (item.partCapacity ?? 0),
  });
}

/** "5.00 RUB (2.50 RUB a part)", or why there is no price. */
export function priceText(item: Extract<EstimateItem, { parts: number }>): string {
  if (item.price === null || item.pricePerPart === null) {
    return item.destination === null ? t('estimate.priceNeedsDestination') : t('estimate.noTariff');
  }
  return t('estimate.price', {
    price: formatAmount(item.price, item.currency),
    perPart: formatAmount(item.pricePerPart, item.currency),
  });
}

/** The sums of an estimate per currency: "12.50 RUB", "12.50 RUB + 3.00 EUR", or a dash. */
export function totalPriceText(price: Readonly<Record<string, number>>): string {
  const entries = Object.entries(price);
  return entries.length ? entries.map(([currency, amount]) => formatAmount(amount, currency)).join(' + ') : '—';
}

/** The line under a message's text: its parts and encoding, its price, or why it could not be sent. */
export function estimateLine(estimate: Estimate | undefined): string | undefined {
  const item = estimate?.items[0];
  if (!item) return undefined;
  if (!isPriced(item)) return explainApiError(item.errorCode, item.msg).text;
  return `${partsText(item)} · ${priceText(item)}`;
}

/** The fields of a message form an API refusal can be about. */
export type MessageField = 'channel' | 'senderName' | 'destination' | 'text' | 'tags' | 'callbackUrl';

const NAMED: Readonly<Record<string, MessageField>> = {
  channelType: 'channel',
  senderName: 'senderName',
  destination: 'destination',
  msisdn: 'destination',
  content: 'text',
  tags: 'tags',
  callbackUrl: 'callbackUrl',
  callbackEvents: 'callbackUrl',
};

/**
 * The field of a message form that a refusal of a send (an item's code and msg) is about, or undefined when it is
 * about none (funds, limits): the message names its field (`Missing senderName`, `Invalid msisdn`, `Invalid tags:
 * ...`), or its words do (`No active sender name: ...`, `Blank content`, `No tariff for ...`).
 */
export function messageFieldOf(code: number | undefined, msg: string): MessageField | undefined {
  const named = /^(?:Invalid|Missing) ([A-Za-z]+)/.exec(msg)?.[1];
  if (named && NAMED[named]) return NAMED[named];
  if (code === 4031) return 'channel';
  if (code === 4221 || /^(Blank content|Content after substitution)/.test(msg)) return 'text';
  if (/^No active sender name/.test(msg)) return 'senderName';
  if (/^(No tariff for|No consent|Destination )/.test(msg) || code === 4035) return 'destination';
  return undefined;
}
