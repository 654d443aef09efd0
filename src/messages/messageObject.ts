import { callbackTargetUrl } from '../callbacks/index.js';
import { maskCallbackUrl } from '../shared/callbackUrlMask.js';
import type { Channel } from '../shared/channels.js';
import type { Static } from 'typebox';
import { isoUtc } from '../util/time.js';
import type { MessageObject } from './messageSchemas.js';
import type { ReadStatus, Status } from './statuses.js';
import type { HistoryEntry, StoredHistoryEntry } from './transitions.js';
import { messageRegionName } from './regionSql.js';
import type { TrafficType } from '../shared/trafficTypes.js';

/** The message object as the API shows it (its schema is in the OpenAPI document). */
export type MessageApi = Static<typeof MessageObject>;

/** The columns the message object is made of. */
export interface MessageRow {
  account_id: number;
  id: string;
  created_at: Date;
  channel_type: Channel;
  direction: 'outbound' | 'inbound';
  sending_method: 'API' | 'UI';
  traffic_center_id: number | null;
  template_id: number | null;
  sender_name: string;
  destination: string;
  country: string | null;
  region: string | null;
  brand: string | null;
  content: unknown;
  /** NULL for none (rows stored before migration 0054 hold an empty array). */
  tags: string[] | null;
  use_local_time: boolean;
  local_send_time: string | null;
  local_completion_time: string | null;
  ttl: number | null;
  hours: number[] | null;
  days: number[] | null;
  short_url: boolean;
  callback_url: string | null;
  callback_events: string[] | null;
  external_message_id: string | null;
  total_parts: number;
  status: Status;
  status_at: Date;
  planned_send_at: Date | null;
  sent_at: Date | null;
  error_code: number | null;
  read_status: ReadStatus | null;
  price: string;
  currency: string | null;
  price_final: boolean;
  price_refunded: boolean;
  history: StoredHistoryEntry[];
  /** The connector of the message's first attempt (a rerouted message's first `from`): a stored sent entry's own. */
  first_connector: string | null;
  cascade_id: string | null;
  cascade_step: number | null;
  traffic_type: TrafficType | null;
  dispatch_id: string | null;
  /** The fraud hold the message waits in (fraud/), while it is open; null otherwise. */
  fraud_hold_id: number | null;
}

/** `columns` (plain column names, comma-separated) each qualified with the relation `m`. */
const qualified = (m: string, columns: string): string =>
  columns
    .split(',')
    .map((c) => `${m}.${c.trim()}`)
    .join(', ');

/** The connector of a message's first attempt, which a stored sent entry may leave to the row (historyOf). */
const firstConnector = (m: string): string =>
  `coalesce(${m}.reroute->'from'->>0, ${m}.connector_id) AS first_connector`;

/** What {@link historyOf} reads of a message ({@link historyColumns}). */
export type HistoryRow = Pick<
  MessageRow,
  'direction' | 'created_at' | 'history' | 'sent_at' | 'status_at' | 'first_connector'
>;
/** The columns {@link historyOf} reads, of the relation `m`. */
export const historyColumns = (m: string): string =>
  `${qualified(m, 'direction, created_at, history, sent_at, status_at')}, ${firstConnector(m)}`;

/**
 * A message's columns as its object reads them, of the relation `m` (qualified, so that a statement may join the
 * message's row with others); the callback URL from its target where the row keeps only that, the region's name
 * from message_regions where the row keeps its id.
 */
export const messageColumns = (m: string): string =>
  `${qualified(m, 'account_id, id, created_at, channel_type, direction, sending_method, traffic_center_id')},
  ${qualified(m, 'template_id, sender_name, destination, country')}, ${messageRegionName(m)} AS region,
  ${qualified(m, 'brand, content, tags, use_local_time, local_send_time, local_completion_time, ttl, hours, days')},
  ${qualified(m, 'short_url')},
  coalesce(${m}.callback_url, ${callbackTargetUrl(`${m}.callback_target_id`)}) AS callback_url,
  ${qualified(m, 'callback_events, external_message_id, total_parts, status, status_at, planned_send_at, sent_at')},
  ${qualified(m, 'error_code, read_status, history, price, currency, price_final, price_refunded')},
  ${firstConnector(m)}, ${qualified(m, 'cascade_id, cascade_step, traffic_type, dispatch_id, fraud_hold_id')}`;

/**
 * The message object of GET /api/v1/message/{uuid}, also the `item` of inbound callbacks.
 * Times are ISO 8601 UTC; local send and completion times keep their own format; callback credentials are masked.
 * `statusHistory` is Herald's addition: every status change, retry and carrier outcome with its time.
 */
export function messageToApi(row: MessageRow): MessageApi {
  return {
    messageUuid: row.id,
    createdTime: isoUtc(row.created_at)!,
    channelType: row.channel_type,
    sendingMethod: row.sending_method,
    // Inbound messages have none.
    trafficType: row.direction === 'inbound' ? null : row.traffic_type,
    templateId: row.template_id,
    trafficCenterId: row.traffic_center_id,
    externalMessageId: row.external_message_id,
    senderName: row.sender_name,
    destination: row.destination,
    country: row.country,
    region: row.region,
    brand: row.brand,
    content: row.content,
    tags: row.tags ?? [],
    ttl: row.ttl,
    hours: row.hours,
    days: row.days,
    localSendTime: row.local_send_time,
    localCompletionTime: row.local_completion_time,
    useLocalTime: row.use_local_time,
    shortUrl: row.short_url,
    callbackUrl: row.callback_url === null ? null : maskCallbackUrl(row.callback_url),
    callbackEvents: row.callback_events,
    totalParts: row.total_parts,
    price: {
      totalPrice: invoiced(row) ? Number(row.price) : 0,
      currency: row.currency,
      invoicedParts: invoiced(row) ? row.total_parts : 0,
      final: row.price_final,
    },
    plannedSendTime: isoUtc(row.planned_send_at),
    sentTime: isoUtc(row.sent_at),
    statusTime: isoUtc(row.status_at)!,
    // Sent once, then rerouted by the operator's route (DESIGN 21): its client was told it was sent, and stays told.
    status: row.status === 'sending' && row.sent_at !== null ? 'sent' : row.status,
    readStatus: row.read_status,
    cascadeMessageUuid: row.cascade_id,
    cascadeStep: row.cascade_step,
    dispatchId: row.dispatch_id,
    // Kept on a rejected message (unsent 7701); a hold matters only while the message waits in it.
    hold: row.fraud_hold_id !== null && row.status === 'sending' ? 'fraud' : null,
    errorCode: row.error_code,
    direction: row.direction,
    statusHistory: historyOf(row).map((entry) => Object.assign({}, entry, { at: isoUtc(new Date(entry.at))! })),
  };
}

/**
 * A message's status history. What the row's other columns say is not stored again (each later version of the row
 * would write it again):
 * - an outbound message's first entry, `sending` at its creation, is the history's head unless the row holds it
 *   itself, as rows stored before did (a stored `sending` entry is otherwise a retry's, which has its retryAt);
 * - the first attempt's sent entry may be stored as `{"status": "sent"}`: its time is the row's `sent_at` and its
 *   connector the first attempt's;
 * - a final entry (delivered, undelivered, unsent) may be stored without its time, the row's `status_at`.
 * transitionSql.ts stores them so only where the row says the same; rows stored before hold them whole.
 */
export function historyOf(row: HistoryRow): HistoryEntry[] {
  const stored = row.history.map((entry) => (whole(entry) ? entry : entryOf(row, entry)));
  const first = stored[0];
  const held = first !== undefined && first.status === 'sending' && first.retryAt === undefined;
  if (row.direction !== 'outbound' || held) return stored;
  return [{ status: 'sending', at: row.created_at.toISOString() }, ...stored];
}

const whole = (entry: StoredHistoryEntry): entry is HistoryEntry => entry.at !== undefined;

/** An entry stored without its time, with the row's (and a sent entry's connector). */
function entryOf(row: HistoryRow, { status, ...rest }: StoredHistoryEntry): HistoryEntry {
  if (status !== 'sent') return { status, at: row.status_at.toISOString(), ...rest };
  return {
    status,
    at: (row.sent_at ?? row.status_at).toISOString(),
    ...(row.first_connector === null ? {} : { connector: row.first_connector }),
  };
}

/**
 * Whether the message's parts are invoiced: not for an inbound message, nor for an unsent one (refunded, or refused
 * at its creation and never charged), whose price is 0.
 */
function invoiced(row: MessageRow): boolean {
  return row.direction === 'outbound' && row.status !== 'unsent' && !row.price_refunded;
}
