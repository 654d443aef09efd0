import { codeWord } from '../shared/i18n/index.js';
import type { Answer } from '../shared/apiClient.js';

/*
 * Cascades (DESIGN section 13) as the pages show and compose them: one notification over a chain of 1 to 6
 * channels, each next step sent when the one before ends as its condition says.
 */

/** GET /api/v1/message/cascade/{uuid}: the cascade's state and each of its steps with its message. */
export type Cascade = Answer<'/api/v1/message/cascade/{uuid}', 'get'>;
export type CascadeStep = Cascade['steps'][number];
export type Condition = NonNullable<CascadeStep['condition']>;

/** Steps of one cascade: at most 6. */
export const MAX_STEPS = 6;

/** Channels with read receipts: only after one of them may the next step follow on `not_read`. */
export const READ_TRACKED: ReadonlySet<string> = new Set(['VK', 'VIBER', 'WHATSAPP']);

/** Whether a step is read or not read after delivery: a READ_TRACKED channel, or a TELEGRAM code (DESIGN 18). */
export const isReadTracked = (channel: string, code: boolean): boolean =>
  READ_TRACKED.has(channel) || (channel === 'TELEGRAM' && code);

/** The conditions on which a next step follows, in words of the current language. */
export const conditions = (): readonly { value: Condition; label: string }[] =>
  (['not_delivered', 'not_read'] as const).map((value) => ({ value, label: codeWord('cascadeCondition', value) }));

export function conditionText(condition: Condition | null): string {
  return condition ? codeWord('cascadeCondition', condition) : '—';
}
