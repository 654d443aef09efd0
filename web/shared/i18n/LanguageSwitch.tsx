import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentLanguage, type Language, onLanguage, setLanguage, t } from './index.js';

/**
 * Renders its children again, from scratch, when the language changes: every text is read from the catalogue as it
 * renders, and nothing keeps a text from before the switch (a form being filled is emptied; the URL and the
 * session stay).
 */
export function LanguageRoot({ children }: { children: ComponentChildren }) {
  const [shown, setShown] = useState(currentLanguage);
  useEffect(() => onLanguage(setShown), []);
  return <Fragment key={shown}>{children}</Fragment>;
}

/** The control on every page that switches to the other language; it is named in the language it switches to. */
export function LanguageSwitch() {
  const other: Language = currentLanguage() === 'ru' ? 'en' : 'ru';
  return (
    <button
      type="button"
      class="secondary language"
      lang={other}
      title={t('language.switch')}
      onClick={() => setLanguage(other)}
    >
      {other === 'ru' ? 'Русский' : 'English'}
    </button>
  );
}
