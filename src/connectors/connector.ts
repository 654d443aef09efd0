import type { Channel } from '../shared/channels.js';
import type { CarrierReceipt } from '../shared/receipts.js';

export type { CarrierReceipt, ReceiptState } from '../shared/receipts.js';

/** What a connector is given to send: one message, already validated and planned. */
export interface OutboundMessage {
  readonly accountId: number;
  readonly id: string;
  readonly channel: Channel;
  readonly senderName: string;
  /** E.164 digits without `+`. */
  readonly destination: string;
  /** A string for SMS, FLASHCALL, VK; the content object for VOICECODE, VIBER, WHATSAPP. */
  readonly content: unknown;
  readonly totalParts: number;
  /** Seconds left of the message's lifetime when it is handed over (a resubmission gets less): its validity. */
  readonly ttlSeconds: number;
  readonly externalMessageId: string | null;
  /** An AUTHORIZE or TRANSACT message: it goes ahead of the others and may take the window's urgent share. */
  readonly urgent: boolean;
}

/**
 * The typed outcome of one submission: the carrier took it (with its ids, one per part), or it may be tried again
 * later (transient), or it never will be (permanent, with the carrier's error code). A carrier whose answer is also
 * the delivery outcome (Telegram's Bot API: `sendMessage` succeeds once the chat has the message, and nothing is
 * reported later) gives it as `final`, recorded as the submission's receipt.
 */
export type SubmitOutcome =
  | {
      readonly kind: 'accepted';
      readonly carrierIds: readonly string[];
      /** The provider's price of the message, where its answer gives one (the buy price). */
      readonly buyPrice?: number;
      /** The provider reports no status by itself: Herald polls it until this time (declarative connectors). */
      readonly pollUntil?: Date;
      readonly final?: { readonly state: 'delivered' | 'undelivered'; readonly errorCode: number | null };
    }
  | { readonly kind: 'transient'; readonly retryAfterMs: number; readonly reason: string; readonly errorCode?: number }
  | { readonly kind: 'permanent'; readonly errorCode: number; readonly reason: string };

/** Live state for the operator: connection, window, rate, last error. */
export interface ConnectorState {
  readonly id: string;
  readonly type: string;
  readonly channel: Channel;
  /** bound (SMPP) or ready (HTTP): new submissions can go. */
  readonly available: boolean;
  readonly state: string;
  readonly inFlight: number;
  readonly window: number;
  readonly mps: number;
  readonly submitted: number;
  readonly lastError: string | null;
  /** When the last error happened. */
  readonly lastErrorAt?: Date | null;
  /** Submissions waiting for room in the window. */
  readonly queued?: number;
  /** A declarative connector's profile (profiles/). */
  readonly profile?: string;
  /** The balance left at the provider, as its last answer said (declarative connectors that read one). */
  readonly balance?: number | null;
  /** Answers of the carrier that asked to send slower (SMPP ESME_RTHROTTLED, ESME_RMSGQFUL) since the start. */
  readonly throttled?: number;
  /** The end of the pause in sending those answers started, while it lasts; null when sending. */
  readonly pausedUntil?: Date | null;
}

/**
 * Receives carrier receipts and resolves once they are durably recorded; a connector acknowledges a receipt to its
 * carrier only then, so that a crash before the commit makes the carrier send it again.
 */
export type ReceiptSink = (receipts: readonly CarrierReceipt[]) => Promise<void>;

/** A subscriber's message a connector received from its provider (the inbound capability stores it). */
export interface InboundMessage {
  /** The subscriber's number, as the provider wrote it. */
  readonly from: string;
  /** The provider's id of the message: a webhook sent again is recognised by it. */
  readonly id: string;
  readonly timestamp: Date;
  readonly text: string;
  /** The provider's id of the business number written to (WhatsApp: metadata.phone_number_id). */
  readonly phoneNumberId: string | undefined;
  /** The business number or name the subscriber wrote to (WhatsApp: metadata.display_phone_number). */
  readonly displayName: string | undefined;
}

/** Stores a connector's inbound messages; resolves once they are committed. */
export type InboundSink = (connectorId: string, messages: readonly InboundMessage[]) => Promise<void>;

/** One channel to one carrier. */
export interface Connector {
  readonly id: string;
  readonly type: string;
  readonly channel: Channel;
  start(): Promise<void>;
  /** Stops taking submissions, finishes or fails those in flight, and disconnects. */
  stop(): Promise<void>;
  /**
   * Hands back the submissions still waiting for room in the window, and any later ones, as transient outcomes
   * (the submitter returns them to the queue), while those already sent finish: the process is stopping.
   */
  release(): void;
  available(): boolean;
  /** Whether the connector sends this content of its channel (TELEGRAM: texts by the Bot API, codes by the Gateway). */
  carries?(content: unknown): boolean;
  /** Where the carrier reaches Herald when the configuration does not say (the embedded simulators' address). */
  defaultPublicUrl?(url: string): void;
  submit(message: OutboundMessage): Promise<SubmitOutcome>;
  state(): ConnectorState;
}

/**
 * What the telegram-bot connector needs of Herald's records (telegram/ keeps them): the token of an account's bot
 * (its TELEGRAM sender name) and the chats subscribers linked to it. `bot` is the sender name in lower case.
 */
export interface TelegramChats {
  /** The bot's token, while the sender name is active (approved, started, with a token). */
  botToken(accountId: number, bot: string): Promise<string | undefined>;
  /** The chat of a number with the bot, if the subscriber linked it. */
  chatOf(accountId: number, bot: string, phone: string): Promise<string | undefined>;
  /** Forgets a number's chat: the subscriber blocked the bot, or the chat is gone. */
  unlink(accountId: number, bot: string, phone: string): Promise<void>;
}
