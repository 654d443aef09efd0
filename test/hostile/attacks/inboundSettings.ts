import type { Attack } from '../harness.js';

/**
 * The largest sender-name list a rule may have by default (HERALD_INBOUND_RULE_SENDER_NAMES), of 64-character names.
 */
const FULL_LIST = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, '0')}${'n'.repeat(61)}`);

export interface InboundSettingsState {
  readonly token: string;
  readonly center: number;
  /** A 1 MB rule (a hundred thousand sender names), built once: the attacker's cost is not what is measured. */
  readonly hugeRule: string;
}

/**
 * Finding 8c: an account piles up traffic centers and inbound rules with full sender-name lists, and sends rules far
 * bigger than any valid one. Round by round: a new center, a new rule, a huge rule.
 */
export const inboundSettingsFlood = (): Attack<InboundSettingsState> => ({
  name: 'traffic centers and inbound rules past their ceilings',
  async setup(h) {
    const attacker = await h.createAccount();
    const centers = await h.call('GET', '/api/v1/traffic-centers', { token: attacker.system });
    const center = centers.body.items[0].id as number;
    const hugeRule = JSON.stringify({
      trafficCenterId: center,
      senderNames: Array.from({ length: 100_000 }, (_, i) => `name${i}`),
    });
    return { token: attacker.system, center, hugeRule };
  },
  round(h, state, round) {
    const token = state.token;
    switch (round % 3) {
      case 0:
        return h.call('POST', '/api/v1/traffic-centers', { token, body: { name: `Center ${round}` } });
      case 1:
        return h.call('POST', '/api/v1/inbound-rules', {
          token,
          body: {
            trafficCenterId: state.center,
            callbackUrl: `https://hooks.example/in/${round}`,
            senderNames: FULL_LIST,
          },
        });
      default:
        return h.call('POST', '/api/v1/inbound-rules', {
          token,
          rawBody: state.hugeRule,
          headers: { 'content-type': 'application/json' },
        });
    }
  },
});
