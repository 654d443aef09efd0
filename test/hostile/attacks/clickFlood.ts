import type { Attack, Reply } from '../harness.js';
import { sendShortLink } from './unencodableLinks.js';

export const CLICK_FLOOD_TARGET = 'https://shop.example/sale';

/**
 * Finding 8b: anyone may click a short link; a round is 10 clicks at once on one link from one address, whose
 * message asked for `click` callbacks. Returns a refused click if there was one, else the first.
 */
export const clickFlood = (receiverUrl: string): Attack<{ path: string; messageId: string }> => ({
  name: 'a flood of clicks on one short link',
  async setup(h) {
    const owner = await h.createAccount({ senderNames: [['SMS', 'Clicked']] });
    return sendShortLink(h, owner.traffic, 'Clicked', `Sale ${CLICK_FLOOD_TARGET}`, {
      callbackUrl: receiverUrl,
      callbackEvents: ['click'],
    });
  },
  async round(h, state) {
    const replies: Reply[] = await Promise.all(
      Array.from({ length: 10 }, () => h.call('GET', state.path, { redirect: 'manual' })),
    );
    return replies.find((reply) => reply.status !== 302) ?? replies[0]!;
  },
});
