import type { Attack, Reply } from '../harness.js';

/** Finding 1's template: 7,000 `{a}`, a valid SMS of 138 parts (21,000 characters). */
export const MANY_PLACEHOLDERS = '{a}'.repeat(7000);
/** Finding 5's template: placeholders every object inherits a property of. */
export const INHERITED_PLACEHOLDERS = 'Hello {constructor}, {toString}';

export interface DispatchSubstitutionState {
  readonly token: string;
  readonly many: string;
  readonly inherited: string;
}

/** What one round got back: the two large adds and the add to the template of inherited names. */
export type DispatchSubstitutionReplies = readonly [Reply, Reply, Reply];

/**
 * Findings 1 and 5 of issue 27: an account adds destinations to its dispatch whose content holds 7,000 `{a}`: 2 of
 * them with a value of 10,000 characters (a body of 20 KB, 70 million characters once substituted), then 50 with
 * 1,000 characters (the documented maxLength); each used to be built in full before it was validated (1.3-4.8 s
 * frozen). And one destination, with no substitutions, to a dispatch whose placeholders are `{constructor}` and
 * `{toString}`, which used to be filled from Object.prototype.
 */
export const dispatchSubstitutions: Attack<DispatchSubstitutionState, DispatchSubstitutionReplies> = {
  name: 'dispatch substitutions multiplied by placeholders',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    const create = async (content: string): Promise<string> => {
      const reply = await h.call('POST', '/api/v1/dispatch', {
        token: attacker.traffic,
        body: { dispatchName: 'Attack', channelType: 'SMS', senderName: 'Attacker', content },
      });
      if (reply.status !== 201) throw new Error(`dispatch not created: ${JSON.stringify(reply.body)}`);
      return reply.body.dispatchId as string;
    };
    return {
      token: attacker.traffic,
      many: await create(MANY_PLACEHOLDERS),
      inherited: await create(INHERITED_PLACEHOLDERS),
    };
  },
  round: async (h, state, round) => {
    const add = (id: string, items: unknown[]) =>
      h.call('POST', `/api/v1/dispatch/${id}/messages`, { token: state.token, body: items });
    const people = (n: number, value: string) =>
      Array.from({ length: n }, (_, i) => ({
        destination: `7916777${String(round % 100).padStart(2, '0')}${String(i).padStart(2, '0')}`,
        substitutions: { a: value },
      }));
    return [
      await add(state.many, people(2, 'x'.repeat(10_000))),
      await add(state.many, people(50, 'x'.repeat(1000))),
      await add(state.inherited, [{ destination: '79167770000' }]),
    ];
  },
};
