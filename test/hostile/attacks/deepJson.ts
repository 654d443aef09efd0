import { randomUUID } from 'node:crypto';
import type { Attack } from '../harness.js';
import { LARGE, type LargeBodyReply, postOnOwnConnection } from './largeBodies.js';

/** The routes that take the largest bodies (HERALD_BODY_LIMIT, 16 MiB), each with a TOKEN_1. */
export const BATCH_ROUTES = [
  '/api/v1/message',
  '/api/v1/message/cascade',
  // A dispatch of no one: the body is read before the handler looks for it.
  `/api/v1/dispatch/${randomUUID()}/messages`,
] as const;

export interface DeepJsonState {
  readonly traffic: string;
  readonly deep: Buffer;
  readonly dense: Buffer;
}

/**
 * Finding 2 of issue 27: JSON that costs JSON.parse far more than its size says, with a valid TOKEN_1, to the
 * routes that take 16 MiB: 15 MB of `[` (7-8 s of JSON.parse a request) and 15 MB of `{},` (2.4 s). Each round
 * sends both to one of the routes, each on a connection of its own.
 */
export const deepJson = (): Attack<DeepJsonState, LargeBodyReply[]> => ({
  name: 'deep and dense JSON from an account holder',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    const objects = Math.floor(LARGE / 3);
    return {
      traffic: attacker.traffic,
      deep: Buffer.alloc(LARGE, '['),
      dense: Buffer.from(`[${'{},'.repeat(objects)}{}]`),
    };
  },
  round: (h, state, round) => {
    const path = BATCH_ROUTES[round % BATCH_ROUTES.length]!;
    const headers = { 'content-type': 'application/json', authorization: `Basic ${state.traffic}` };
    return Promise.all([
      postOnOwnConnection(h.url, path, state.deep, headers),
      postOnOwnConnection(h.url, path, state.dense, headers),
    ]);
  },
});
