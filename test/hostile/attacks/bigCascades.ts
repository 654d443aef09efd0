import type { Attack, Reply } from '../harness.js';

/** Cascades a batch holds at most, and steps a cascade. */
const CASCADES = 1000;
const STEPS = 6;

export interface BigCascadeState {
  readonly traffic: string;
  readonly body: string;
}

/** `YYYY-MM-DD hh:mm:ss` in Moscow (UTC+3), as a send time without useLocalTime is written. */
const moscowTime = (at: Date): string =>
  new Date(at.getTime() + 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

/**
 * Finding 3 of issue 27: valid batches of 1000 cascades of 6 SMS steps of 1900 characters (12 MB), one after
 * another, from an account with the funds for them; each took 4-11 s of one request. Their send time is 6 days
 * ahead (of Herald's clock, read from a message of the attacker's), so that what is measured is the request, not
 * 1000 messages a round going out.
 */
export const bigCascades = (): Attack<BigCascadeState, Reply> => ({
  name: 'batches of 1000 six-step cascades',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']], balance: 100_000_000 });
    const probe = await h.call('POST', '/api/v1/message', {
      token: attacker.traffic,
      body: [{ channelType: 'SMS', senderName: 'Attacker', destination: '79165550001', content: 'clock' }],
    });
    const sent = await h.call('GET', `/api/v1/message/${probe.body.items[0].messageUuid}`, { token: attacker.traffic });
    const localSendTime = moscowTime(new Date(Date.parse(sent.body.createdTime) + 6 * 86_400_000));
    const content = 'x'.repeat(1900);
    const body = Array.from({ length: CASCADES }, (_, i) => ({
      destination: `7916${String(i).padStart(7, '0')}`,
      useLocalTime: false,
      localSendTime,
      cascade: Array.from({ length: STEPS }, (_, step) => ({
        channelType: 'SMS',
        senderName: 'Attacker',
        content: `${step} ${content}`,
        ...(step < STEPS - 1 ? { condition: 'not_delivered' } : {}),
      })),
    }));
    return { traffic: attacker.traffic, body: JSON.stringify(body) };
  },
  round: (h, state) =>
    h.call('POST', '/api/v1/message/cascade', {
      token: state.traffic,
      rawBody: state.body,
      headers: { 'content-type': 'application/json' },
    }),
});
