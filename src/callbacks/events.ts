/** Events a message's callbacks may be requested for (spec 6.1). */
export const CALLBACK_EVENTS = ['delivered', 'sent', 'read', 'price', 'click'] as const;
export type CallbackEvent = (typeof CALLBACK_EVENTS)[number];

/** Sent when `callbackUrl` is given without `callbackEvents`. */
export const DEFAULT_CALLBACK_EVENTS: readonly CallbackEvent[] = ['delivered'];

export function isCallbackEvent(value: unknown): value is CallbackEvent {
  return typeof value === 'string' && (CALLBACK_EVENTS as readonly string[]).includes(value);
}
