import { request } from 'node:http';
import { SIM_CONNECTOR_IDS } from '../../../src/simulators/embeddedSimulators.js';
import type { Attack } from '../harness.js';

/** The finding's body: 15 MB of JSON, under the 16 MiB every route used to take. */
export const LARGE = 15 * 1024 * 1024;
/** Under the webhook limit (3 MiB), so that it is read, but signed by no one. */
const UNSIGNED = 2 * 1024 * 1024;

export interface LargeBodyState {
  readonly large: Buffer;
  readonly unsigned: Buffer;
}

/** What Herald answered to one large body. */
export interface LargeBodyReply {
  readonly status: number;
  readonly body: any;
}

/**
 * POSTs `body` on a connection of its own, which Herald may close before the body is all sent (it refuses from the
 * headers): a pooled connection, shared with the victim's requests, would fail theirs too when it closes.
 */
export function postOnOwnConnection(
  url: string,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<LargeBodyReply> {
  return new Promise((resolve) => {
    const sent = request(
      `${url}${path}`,
      { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(body.length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: { reset: error.code } }));
      },
    );
    // Herald may close the connection on a body it refused (Fastify does, so that the client stops sending): the
    // reset can come before the answer is read. That is a refusal too, recorded as status 0 with the socket's code.
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: { reset: error.code } }));
    sent.end(body);
  });
}

/** A JSON array of numbers of about `bytes` bytes: what costs most to parse per byte. */
export function jsonOf(bytes: number): Buffer {
  const item = '1234567,';
  return Buffer.from(`[${item.repeat(Math.floor(bytes / item.length))}0]`);
}

/**
 * Finding 6: large bodies, from anyone, to the routes that take them without a token: 15 MB to a webhook of no
 * connector and to sign-in, and 2 MB with no valid signature to the simulated WhatsApp connector's webhook (from an
 * address of its own, X-Forwarded-For, so that its failures are not the victim's). Each used to be read and parsed
 * before any check (2.8 s for 15 MB).
 */
export const largeBodies = (): Attack<LargeBodyState, LargeBodyReply[]> => ({
  name: 'large bodies without credentials',
  async setup() {
    return { large: jsonOf(LARGE), unsigned: jsonOf(UNSIGNED) };
  },
  round: (h, state) => {
    const json = { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.66' };
    return Promise.all([
      postOnOwnConnection(h.url, '/webhooks/nope', state.large, json),
      postOnOwnConnection(h.url, '/app/v1/session', state.large, json),
      postOnOwnConnection(h.url, `/webhooks/${SIM_CONNECTOR_IDS.WHATSAPP}`, state.unsigned, {
        ...json,
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
      }),
    ]);
  },
});
