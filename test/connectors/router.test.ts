import { describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connectors/connector.js';
import { Router } from '../../src/connectors/router.js';

function connector(id: string, channel: Connector['channel'], up = true): Connector & { up: boolean } {
  const c = {
    id,
    type: 'test',
    channel,
    up,
    start: async () => undefined,
    stop: async () => undefined,
    release: () => undefined,
    available: () => c.up,
    submit: async () => ({ kind: 'accepted' as const, carrierIds: ['x'] }),
    state: () => ({
      id,
      type: 'test',
      channel,
      available: c.up,
      state: 'x',
      inFlight: 0,
      window: 1,
      mps: 1,
      submitted: 0,
      lastError: null,
    }),
  };
  return c;
}

describe('routing (DESIGN 8)', () => {
  const a = connector('a', 'SMS');
  const b = connector('b', 'SMS');
  const ru = connector('ru', 'SMS');
  const msk = connector('msk', 'SMS');
  const router = new Router(
    [
      { channel: 'SMS', prefixes: [], connectors: ['a', 'b'] },
      { channel: 'SMS', prefixes: ['7'], connectors: ['ru', 'a'] },
      { channel: 'SMS', prefixes: ['7916', '7925'], connectors: ['msk'] },
    ],
    [a, b, ru, msk],
  );

  it('takes the route with the longest matching prefix', () => {
    expect(router.pick('SMS', '4915112345678')?.id).toBe('a');
    expect(router.pick('SMS', '79031234567')?.id).toBe('ru');
    expect(router.pick('SMS', '79161234567')?.id).toBe('msk');
    expect(router.pick('SMS', '79251234567')?.id).toBe('msk');
  });

  it('falls back to the next connector of the route in order when one is unavailable', () => {
    a.up = false;
    expect(router.pick('SMS', '4915112345678')?.id).toBe('b');
    ru.up = false;
    expect(router.pick('SMS', '79031234567')).toBeUndefined();
    a.up = true;
    expect(router.pick('SMS', '79031234567')?.id).toBe('a');
    ru.up = true;
  });

  it('has no route for a channel without one', () => {
    expect(router.pick('VK', '79161234567')).toBeUndefined();
    expect(router.candidates('VK', '79161234567')).toEqual([]);
  });
});
