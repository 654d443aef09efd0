import { parseLocalTime } from '../util/time.js';
import type { SendWindow } from './sendWindow.js';

/** Moscow time, used when a message says useLocalTime: false (spec 2.1). */
export const MOSCOW_ZONE = 'Europe/Moscow';

/** The window fields of a message, as validated or as stored. */
export interface WindowFields {
  readonly useLocalTime: boolean;
  readonly localSendTime: string | null;
  readonly localCompletionTime: string | null;
  readonly hours: readonly number[] | null;
  readonly days: readonly number[] | null;
  readonly ttl: number | null;
}

/** The zones a message's local times are written in: its subscriber's, or Moscow's when useLocalTime is false. */
export function windowZones(useLocalTime: boolean, subscriberZones: readonly string[]): readonly string[] {
  return useLocalTime ? subscriberZones : [MOSCOW_ZONE];
}

/** A message's send window in its subscriber's zones (or Moscow's). */
export function messageWindow(fields: WindowFields, subscriberZones: readonly string[]): SendWindow {
  return {
    zones: windowZones(fields.useLocalTime, subscriberZones),
    sendFrom: fields.localSendTime ? parseLocalTime(fields.localSendTime) : undefined,
    sendUntil: fields.localCompletionTime ? parseLocalTime(fields.localCompletionTime) : undefined,
    hours: fields.hours ?? undefined,
    days: fields.days ?? undefined,
    ttlSeconds: fields.ttl ?? undefined,
  };
}
