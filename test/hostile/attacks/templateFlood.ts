import type { Attack } from '../harness.js';

/** Finding 8c: an account creates templates without end, each as long as a pattern may be (2000 characters). */
export const templateFlood: Attack<{ token: string }> = {
  name: 'templates without end',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    return { token: attacker.system };
  },
  round: (h, state, round) => {
    const head = `Order ${round}: %d `;
    return h.call('POST', '/api/v1/templates', {
      token: state.token,
      body: {
        channelType: 'SMS',
        templateType: 'SERVICE',
        senderName: 'Attacker',
        pattern: head + 'x'.repeat(2000 - head.length),
      },
    });
  },
};
