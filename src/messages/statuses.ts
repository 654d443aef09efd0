import type { Channel } from '../shared/channels.js';

/**
 * Message statuses (spec section 3). `status` is the delivery outcome and stays at
 * `delivered`, `undelivered` or `unsent` once there; whether a delivered message was read is its `readStatus`.
 */
export const STATUS = {
  sending: 'sending',
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  unsent: 'unsent',
  inboundSent: 'inbound_sent',
} as const;
export type Status = (typeof STATUS)[keyof typeof STATUS];

/** A delivered message's read status, on channels with read receipts. */
export const READ_STATUS = { read: 'read', unread: 'unread' } as const;
export type ReadStatus = (typeof READ_STATUS)[keyof typeof READ_STATUS];

/** What a transition of a delivered-or-not message may lead to: a status, or a read status. */
export type Outcome = Exclude<Status, 'sending' | 'inbound_sent'> | ReadStatus;

/** Statuses after which nothing changes the delivery outcome. */
export const FINAL_STATUSES: ReadonlySet<Status> = new Set(['delivered', 'undelivered', 'unsent', 'inbound_sent']);

/**
 * Channels whose messages are also read or not read after delivery; TELEGRAM codes are too (isReadTracked, and the
 * same test in the transitions' SQL).
 */
export const READ_TRACKED: ReadonlySet<Channel> = new Set(['VIBER', 'VK', 'WHATSAPP']);

/**
 * Whether a message is read or not read after delivery: every message of a READ_TRACKED channel, and a TELEGRAM
 * code (the Gateway API reports reads; the Bot API reports nothing after `sendMessage`).
 */
export function isReadTracked(channel: Channel, content: unknown): boolean {
  if (READ_TRACKED.has(channel)) return true;
  return (
    channel === 'TELEGRAM' &&
    typeof content === 'object' &&
    content !== null &&
    (content as { contentType?: unknown }).contentType === 'code'
  );
}

/**
 * The statuses a message may be in for each outcome to apply: a status never goes backwards. A receipt may
 * overtake the record of its submission (`sending` -> `delivered`), and a read may overtake the delivery (the
 * delivery is then recorded first). A read or unread applies only while the read status is
 * unset.
 */
export const FROM_STATUSES: Readonly<Record<Outcome, readonly Status[]>> = {
  sent: ['sending'],
  delivered: ['sending', 'sent'],
  undelivered: ['sending', 'sent'],
  unsent: ['sending', 'sent'],
  read: ['sending', 'sent', 'delivered'],
  unread: ['delivered'],
};

/**
 * Herald's own error codes on messages (`errorCode`), beside the carriers' codes (SMPP command_status or receipt
 * `err`, provider error codes), which are passed through as they come. Herald's are 9000 and up, and 7601 to 7604
 * for the outcomes of TELEGRAM (DESIGN 18).
 */
export const DELIVERY_ERRORS = {
  /** The message could not be sent before its deadline (localCompletionTime, or the end of its lifetime). */
  deadlinePassed: 9001,
  /** The send window never opens before the deadline (hours, days and zones allow no instant). */
  windowNeverOpens: 9002,
  /** Stopped by the client (POST /api/v1/message/stop). */
  stopped: 9003,
  /** No connector route for the channel and destination until the deadline. */
  noRoute: 9004,
  /** No final receipt within the message's lifetime. */
  noReceipt: 9005,
  // 9006 (delivered, not read in the lifetime) is retired: `unread` is a read status, not an error, and a delivered
  // message has no error code (docs/callbacks.md). The number is not given to anything else.
  /** A free-form WHATSAPP message whose 24-hour chat window had closed when its turn to be sent came. */
  chatWindowClosed: 9007,
  // TELEGRAM (DESIGN 18): 76xx, the channel's own outcomes, which no carrier code stands for.
  /** A TELEGRAM text to a number that has shared no contact with the bot: no chat to send it to. */
  telegramNotLinked: 7601,
  /** A TELEGRAM text the Bot API refused with 403: the subscriber blocked the bot (the link is removed). */
  telegramBlocked: 7602,
  /** A TELEGRAM code to a number the Gateway API cannot reach (checkSendAbility said no): unsent, refunded. */
  telegramUnavailable: 7603,
  /** A TELEGRAM text whose bot lost its token (or its sender name) after the message was accepted: unsent, refunded. */
  telegramNoBot: 7604,
  /**
   * On a stop list (DESIGN 20) when its turn to be sent came (listed after it was accepted), or a later step of a
   * cascade listed when it was to be created: unsent, refunded. The real service's code for a blocklisted number.
   */
  stopListed: 453,
  // Fraud guard (DESIGN 20): 77xx.
  /** A message held by the pumping detection whose hold the operator rejected: unsent, refunded. */
  fraudHoldRejected: 7701,
} as const;
