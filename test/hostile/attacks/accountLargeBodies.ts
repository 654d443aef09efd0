import type { Attack } from '../harness.js';
import { jsonOf, LARGE, type LargeBodyReply, postOnOwnConnection } from './largeBodies.js';

/** The routes (POST) an account holder sends large bodies to, with the token each takes. */
export const LARGE_BODY_ROUTES = [
  { path: '/api/v1/templates', token: 'system' },
  { path: '/api/v1/sender-names', token: 'system' },
  { path: '/api/v1/callbacks/replay', token: 'system' },
  { path: '/api/v1/api-keys', token: 'system' },
  { path: '/api/v1/message/stop', token: 'traffic' },
  { path: '/api/v1/flashcall-conversion', token: 'traffic' },
] as const;

export interface AccountLargeBodyState {
  readonly traffic: string;
  readonly system: string;
  readonly large: Buffer;
}

/**
 * Finding 6a: an account holder sends 15 MB of JSON to its own routes (templates, sender names, callback replay, API
 * keys, stopping messages, conversions), each of which used to read and parse up to 16 MiB (2.8 s for 15 MB) while
 * its largest valid body is a few KiB to 2.3 MB. Each body goes on a connection of its own, which Herald may close
 * once it has refused it from its Content-Length.
 */
export const accountLargeBodies = (): Attack<AccountLargeBodyState, LargeBodyReply[]> => ({
  name: 'large bodies from an account holder',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    return { traffic: attacker.traffic, system: attacker.system, large: jsonOf(LARGE) };
  },
  round: (h, state) =>
    Promise.all(
      LARGE_BODY_ROUTES.map((route) =>
        postOnOwnConnection(h.url, route.path, state.large, {
          'content-type': 'application/json',
          authorization: `Basic ${state[route.token]}`,
        }),
      ),
    ),
});
