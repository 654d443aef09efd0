import { call } from '../../helpers/http.js';
import type { TestAccount } from '../../helpers/testHerald.js';
import type { Attack } from '../harness.js';

/** The WhatsApp number account A owns, and B's look-alike name with the same digits (finding 4). */
export const OWNER_NUMBER = '15550001111';
export const LOOKALIKE_NAME = 'Promo 1-555-000-1111';

export interface LookalikeState {
  readonly owner: TestAccount;
  readonly thief: TestAccount;
  /** The operator's answer when B asked for A's number itself, written as E.164 with its `+`. */
  readonly copy: { status: number; body: any };
}

/**
 * Finding 4: account B gets a WhatsApp sender name approved with the digits of A's number, and tries for A's number
 * itself; then subscribers write to A's number (through the simulated provider at `simulatorUrl`, Herald's own port
 * when it runs its simulators) and B hopes for their messages and an open 24-hour window.
 */
export const lookalikeWhatsappName = (simulatorUrl: string): Attack<LookalikeState> => ({
  name: 'a look-alike WhatsApp sender name',
  async setup(h) {
    const owner = await h.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [['WHATSAPP', OWNER_NUMBER]],
      openWhatsapp: false,
    });
    const thief = await h.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [['WHATSAPP', LOOKALIKE_NAME]],
      openWhatsapp: false,
    });
    const copy = await h.admin('POST', `/admin/v1/accounts/${thief.id}/sender-names`, {
      channelType: 'WHATSAPP',
      name: `+${OWNER_NUMBER}`,
    });
    return { owner, thief, copy: { status: copy.status, body: copy.body } };
  },
  // One inbound at a time: a round ends when A has it (or after 5 s), so that the attack measures routing, not a
  // flood of the simulator's webhooks.
  async round(h, state, round) {
    const text = `for A #${round}.`;
    const sent = await call(simulatorUrl, 'POST', '/sim/v1/inbound', {
      body: {
        channelType: 'WHATSAPP',
        from: `7916888${String(round % 10_000).padStart(4, '0')}`,
        senderName: OWNER_NUMBER,
        text,
      },
    });
    if (sent.status !== 200) return sent;
    const deadline = Date.now() + 5000;
    for (;;) {
      const listed = await h.call('GET', `/api/v1/message?direction=inbound&content=${encodeURIComponent(text)}`, {
        token: state.owner.traffic,
      });
      if (listed.status !== 200 || listed.body.total > 0 || Date.now() > deadline) return listed;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },
});
