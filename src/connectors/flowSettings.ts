import { Type } from 'typebox';

// The settings of flow every connector type shares, and the breaker of HTTP connectors: apart from
// connectorConfig.ts, which the declarative connector's settings (http/declarative) would otherwise import in a circle.

/** The share (percent) of a connector's window kept for AUTHORIZE and TRANSACT messages unless it says. */
export const DEFAULT_URGENT_PERCENT = 20;

/** Flow control shared by every connector type. */
export const Flow = {
  /** Submissions in flight at once (SMPP: PDUs awaiting their response). */
  window: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 100 })),
  /** Submissions started per second. */
  mps: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1000 })),
  /** The share (percent) of the window only AUTHORIZE and TRANSACT messages may take. */
  urgentPercent: Type.Optional(Type.Integer({ minimum: 0, maximum: 90, default: DEFAULT_URGENT_PERCENT })),
};

/**
 * An HTTP provider that fails this many submissions in a row (no answer, timeout, 5xx) is taken out of its routes
 * for the pause, so that messages go to the next connector; then it is tried again.
 */
export const Breaker = {
  breakerFailures: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 5 })),
  breakerOpenSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 30 })),
};

/**
 * The carrier's error codes (a receipt's `err:`, a status report's code) that mean the subscriber is on its
 * blocklist: such a receipt puts the number on the account's stop list (source `carrier`; DESIGN 20).
 */
export const CarrierBlocklist = {
  blocklistErrorCodes: Type.Optional(
    Type.Array(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), { maxItems: 100, uniqueItems: true }),
  ),
};
