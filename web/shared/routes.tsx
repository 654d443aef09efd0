import type { VNode } from 'preact';
import { Route, Router } from 'preact-iso';
import { t } from './i18n/index.js';

/**
 * The path changed inside the page (a link, a search, the back or forward button) since it loaded. Pages then move
 * focus to their heading, for screen readers and keyboards; on the first load the browser's own focus stays.
 */
let navigated = false;

export function wasNavigated(): boolean {
  return navigated;
}

/**
 * The pages of a site by path: preact-iso's Router over `<Route path component>` children, below a
 * LocationProvider (main.tsx), and "Page not found" for any other path. Both sites share it for the two things
 * preact-iso leaves to them: noting the first in-page navigation for {@link wasNavigated}, and the not-found page.
 */
export function Routes({ children }: { children: VNode[] }) {
  return (
    <Router
      onRouteChange={() => {
        navigated = true;
      }}
    >
      {children}
      <Route default component={NotFound} />
    </Router>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <section class="page">
      <h1>{t('ui.notFound.title')}</h1>
      <p>
        {t('ui.notFound.at')} <code>{path}</code>. {t('ui.notFound.choose')}
      </p>
    </section>
  );
}
