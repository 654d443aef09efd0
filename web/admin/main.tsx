import { render } from 'preact';
import { LocationProvider } from 'preact-iso';
import { applyLanguage, t } from '../shared/i18n/index.js';
import { LanguageRoot } from '../shared/i18n/LanguageSwitch.js';
import '../shared/style.css';
import { App, BASE } from './App.js';

applyLanguage();
document.title = t('ui.titleSuffix', { title: t('admin.title') });

// Links to paths outside the site (the API, /docs) load as pages; links inside it change the page in place.
render(
  <LanguageRoot>
    <LocationProvider scope={BASE}>
      <App />
    </LocationProvider>
  </LanguageRoot>,
  document.getElementById('root')!,
);
