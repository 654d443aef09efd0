/** The channel values of the API (spec section 1). */
export const CHANNELS = ['SMS', 'FLASHCALL', 'VOICECODE', 'VIBER', 'WHATSAPP', 'VK', 'TELEGRAM'] as const;
export type Channel = (typeof CHANNELS)[number];

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}

/** Channels an account may use until the operator says otherwise; WHATSAPP must be enabled by the operator. */
export const CHANNELS_ENABLED_BY_DEFAULT: ReadonlySet<Channel> = new Set([
  'SMS',
  'FLASHCALL',
  'VOICECODE',
  'VIBER',
  'VK',
  'TELEGRAM',
]);

/** An account's channel switches: the defaults overlaid with the operator's choices. */
export function enabledChannels(overrides: Readonly<Partial<Record<Channel, boolean>>>): Record<Channel, boolean> {
  return Object.fromEntries(
    CHANNELS.map((channel) => [channel, overrides[channel] ?? CHANNELS_ENABLED_BY_DEFAULT.has(channel)]),
  ) as Record<Channel, boolean>;
}
