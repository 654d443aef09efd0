import type { Channel } from '../shared/channels.js';

/** Message statuses (spec section 3, DESIGN section 4). */
export const STATUS = {
  sending: 'sending',
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  unsent: 'unsent',
  read: 'read',
  unread: 'unread',
  inboundSent: 'inbound_sent',
} as const;
export type Status = (typeof STATUS)[keyof typeof STATUS];

export const FINAL_STATUSES: ReadonlySet<Status> = new Set(['undelivered', 'unsent', 'read', 'unread', 'inbound_sent']);

/** Channels whose messages are also read or not read after delivery. */
export const READ_TRACKED: ReadonlySet<Channel> = new Set(['VIBER', 'VK', 'WHATSAPP']);

/**
 * The statuses a message may be in for each new status to apply: a status never goes backwards. A receipt may
 * overtake the record of its submission (`sending` -> `delivered`), and a read may overtake the delivery.
 */
export const FROM_STATUSES: Readonly<Record<Exclude<Status, 'sending' | 'inbound_sent'>, readonly Status[]>> = {
  sent: ['sending'],
  delivered: ['sending', 'sent'],
  undelivered: ['sending', 'sent'],
  unsent: ['sending', 'sent'],
  read: ['sending', 'sent', 'delivered'],
  unread: ['delivered'],
};

/**
 * Herald's own error codes on messages (`errorCode`), beside the carriers' codes (SMPP command_status or receipt
 * `err`, provider error codes), which are passed through as they come. Herald's are 9000 and up.
 */
export const DELIVERY_ERRORS = {
  /** The message could not be sent before its deadline (localCompletionTime, or earliest send time + ttl). */
  deadlinePassed: 9001,
  /** The send window never opens before the deadline (hours, days and zones allow no instant). */
  windowNeverOpens: 9002,
  /** Stopped by the client (POST /api/v1/message/stop). */
  stopped: 9003,
  /** No connector route for the channel and destination until the deadline. */
  noRoute: 9004,
  /** No final receipt within the message's lifetime after it was sent. */
  noReceipt: 9005,
  /** Delivered but not read within the message's lifetime. */
  notRead: 9006,
} as const;
