import { randomFillSync } from 'node:crypto';

// Random bytes are drawn in blocks: one getrandom call per 4096 UUIDs instead of one per UUID.
const POOL_UUIDS = 4096;
const pool = Buffer.alloc(POOL_UUIDS * 10);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

let lastMs = -1;
const MAX_STEP_BACK_MS = 5000;
let sequence = 0;

/**
 * A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then random bits. Time-ordered ids
 * keep inserts at the right edge of the messages primary key instead of scattering them over the whole index, and
 * the counter (RFC 9562 method 1) keeps ids made in one millisecond in the order they were made, so that a batch
 * lists in request order.
 */
export function uuid7(nowMs: number = Date.now()): string {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += 10;
  // Monotonic through small clock steps back; a large one (a clock set back, a test clock) restarts from it.
  let ms = Math.floor(nowMs);
  if (ms < lastMs && lastMs - ms < MAX_STEP_BACK_MS) ms = lastMs;
  if (ms === lastMs) {
    sequence++;
    if (sequence > 0xfff) {
      ms++;
      sequence = pool[r]! & 0x3ff;
    }
  } else {
    // Start low in the counter's range, leaving room for a burst within the millisecond.
    sequence = ((pool[r]! << 8) | pool[r + 1]!) & 0x3ff;
  }
  lastMs = ms;
  const high = Math.floor(ms / 0x1000000);
  const low = ms % 0x1000000;
  const b = pool;
  return (
    HEX[(high >>> 16) & 0xff]! +
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | (sequence >>> 8)]! +
    HEX[sequence & 0xff]! +
    '-' +
    HEX[0x80 | (b[r + 2]! & 0x3f)]! +
    HEX[b[r + 3]!]! +
    '-' +
    HEX[b[r + 4]!]! +
    HEX[b[r + 5]!]! +
    HEX[b[r + 6]!]! +
    HEX[b[r + 7]!]! +
    HEX[b[r + 8]!]! +
    HEX[b[r + 9]!]!
  );
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The lowest or highest version 7 UUID of a millisecond. */
export function uuidBound(ms: number, side: 'low' | 'high'): string {
  const hex = Math.max(0, Math.min(ms, 2 ** 48 - 1))
    .toString(16)
    .padStart(12, '0');
  const head = `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
  return side === 'low' ? `${head}-7000-8000-000000000000` : `${head}-7fff-bfff-ffffffffffff`;
}

/**
 * {@link uuidBound} in SQL: the lowest or highest version 7 UUID of the millisecond of `timestamp`, an SQL
 * expression of type timestamptz.
 */
export function uuidBoundSql(timestamp: string, side: 'low' | 'high'): string {
  const rest = side === 'low' ? '70008000000000000000' : '7fffbfffffffffffffff';
  return `(lpad(to_hex(floor(extract(epoch FROM ${timestamp}) * 1000)::bigint), 12, '0') || '${rest}')::uuid`;
}

/** The Unix milliseconds of a version 7 UUID (its first 48 bits). */
export function uuidTime(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

/** Whether `id` (canonical text) is a version 7 uuid: only then does {@link uuidTime} give its creation's time. */
export function isUuid7(id: string): boolean {
  return id[14] === '7';
}
