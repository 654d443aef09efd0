import { t } from '../shared/i18n/index.js';

/** How long something has waited, in the reader's words: `56 s`, `3 min 5 s`, `2 h 10 min`, `1 d 4 h`. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t('age.seconds', { s });
  if (s < 3600) return t('age.minutes', { m: Math.floor(s / 60), s: s % 60 });
  if (s < 86_400) return t('age.hours', { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  return t('age.days', { d: Math.floor(s / 86_400), h: Math.floor((s % 86_400) / 3600) });
}
