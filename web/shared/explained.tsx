import type { Explained } from './errorWords.js';
import { t } from './i18n/index.js';

/** An error in words: what happened, its code (smaller), and what to do about it. */
export function ExplainedError({ explained, testId }: { explained: Explained; testId?: string }) {
  return (
    <span class="explained" data-testid={testId}>
      <span class="explained-text">{explained.text}</span>
      {explained.code !== undefined && <small class="hint"> ({t('ui.errorCode', { code: explained.code })})</small>}
      {explained.advice && <span class="explained-advice"> {explained.advice}</span>}
    </span>
  );
}
