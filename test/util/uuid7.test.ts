import { describe, expect, it } from 'vitest';
import { isUuid7, UUID_PATTERN, uuid7 } from '../../src/util/uuid7.js';

describe('version 7 UUIDs', () => {
  it('carry the time in their first 48 bits, version 7 and the RFC 9562 variant', () => {
    // A time no other test's clock is near: ids keep rising through small steps back of the clock.
    const id = uuid7(Date.UTC(2031, 2, 10, 9, 0, 0));
    expect(id).toMatch(UUID_PATTERN);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2031, 2, 10, 9, 0, 0));
    expect(id[14]).toBe('7');
    expect(isUuid7(id)).toBe(true);
    expect(isUuid7('c0ffee00-0000-4000-8000-000000000001')).toBe(false);
    expect('89ab').toContain(id[19]);
  });

  it('sort in the order they were made, also within one millisecond, and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => uuid7(5_000 + Math.floor(i / 10_000)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
