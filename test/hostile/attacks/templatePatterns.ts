import type { Attack } from '../harness.js';

/** Finding 2's approved pattern, whose `%s` placeholders a backtracking regular expression took seconds over. */
export const DEAR_PATTERN = 'Dear %s, order %s %s %s!';

/** Texts of about 6,400 characters: two that do not match, two that nearly do (one character off), one that does. */
export const DEAR_TEXTS: readonly string[] = [
  `Dear ${'a, order '.repeat(710)}`,
  `Dear ${'x '.repeat(3200)}!`,
  `Dear a, order ${'b'.repeat(6400)}!`,
  `Dear a, order ${'b '.repeat(3200)}?`,
  `Dear a, order 1 ${'c '.repeat(3200)}!`,
];

/**
 * Finding 2: an account with the approved pattern sends long texts that do not match it or nearly do (SMS: every
 * message is matched against the account's templates for its `templateId`).
 */
export const templatePatterns: Attack<{ token: string; templateId: number }> = {
  name: 'long texts against an approved template with %s',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    const template = await h.call('POST', '/api/v1/templates', {
      token: attacker.system,
      body: { channelType: 'SMS', templateType: 'SERVICE', senderName: 'Attacker', pattern: DEAR_PATTERN },
    });
    if (template.status !== 201) throw new Error(`template not created: ${JSON.stringify(template.body)}`);
    await h.admin('POST', `/admin/v1/templates/${template.body.id}/approve`, {});
    return { token: attacker.traffic, templateId: template.body.id };
  },
  round: (h, state, round) =>
    h.call('POST', '/api/v1/message', {
      token: state.token,
      body: DEAR_TEXTS.map((content, i) => ({
        channelType: 'SMS',
        senderName: 'Attacker',
        destination: `7916999${String(round % 1000).padStart(3, '0')}${i}`,
        content,
      })),
    }),
};
