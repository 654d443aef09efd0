import type { Channel } from './channels.js';

/** Traffic types, in the order workers take due messages: an authorisation code never waits behind promotions. */
export const TRAFFIC_TYPES = ['AUTHORIZE', 'TRANSACT', 'SERVICE', 'PROMO'] as const;
export type TrafficType = (typeof TRAFFIC_TYPES)[number];
/** AUTHORIZE for the channels that carry codes, SERVICE for the others. */
export const defaultTrafficType = (channel: Channel): TrafficType =>
  channel === 'FLASHCALL' || channel === 'VOICECODE' ? 'AUTHORIZE' : 'SERVICE';
