import { useEffect, useState } from 'preact/hooks';
import { Route, useLocation } from 'preact-iso';
import { onUnauthorized } from '../shared/api.js';
import { t } from '../shared/i18n/index.js';
import { Routes } from '../shared/routes.js';
import { Header, type NavItem } from '../shared/ui.js';
import { AccountPage } from './pages/AccountPage.js';
import { Accounts } from './pages/Accounts.js';
import { Connectors } from './pages/Connectors.js';
import { Dashboard } from './pages/Dashboard.js';
import { Holds } from './pages/Holds.js';
import { Margins } from './pages/Margins.js';
import { Moderation } from './pages/Moderation.js';
import { RoutesPage } from './pages/RoutesPage.js';
import { SignIn } from './pages/SignIn.js';
import { SmppBinds } from './pages/SmppBinds.js';
import { StopList } from './pages/StopList.js';
import { Tariffs } from './pages/Tariffs.js';
import { Unrouted } from './pages/Unrouted.js';
import { type ConsoleSession, session as cookieSession } from './session.js';

export const BASE = '/admin';

const nav = (): readonly NavItem[] => [
  { href: BASE, label: t('admin.nav.dashboard'), prefix: false },
  { href: `${BASE}/accounts`, label: t('admin.nav.accounts') },
  { href: `${BASE}/moderation`, label: t('admin.nav.moderation') },
  { href: `${BASE}/tariffs`, label: t('admin.nav.tariffs') },
  { href: `${BASE}/connectors`, label: t('admin.nav.connectors') },
  { href: `${BASE}/routes`, label: t('admin.nav.routes') },
  { href: `${BASE}/margins`, label: t('admin.nav.margins') },
  { href: `${BASE}/unrouted`, label: t('admin.nav.unrouted') },
  { href: `${BASE}/holds`, label: t('admin.nav.holds') },
  { href: `${BASE}/smpp-binds`, label: t('admin.nav.smppBinds') },
  { href: `${BASE}/stop-list`, label: t('admin.nav.stopList') },
];

/** The operator console: the admin token, then the pages of NAV (inside preact-iso's LocationProvider, main.tsx). */
export function App() {
  // undefined while the browser's session cookie is being asked about (a new tab, a reload), then true or false.
  const [signedIn, setSignedIn] = useState<boolean | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const { route } = useLocation();

  useEffect(() => {
    onUnauthorized(() => {
      cookieSession.setCurrent(undefined);
      setSignedIn(false);
      setEnded(true);
    });
    void cookieSession.resume().then((resumed) => {
      cookieSession.setCurrent(resumed);
      setSignedIn((now) => (now === undefined ? resumed !== undefined : now));
    });
  }, []);

  const signOut = async () => {
    setSignedIn(false);
    setEnded(false);
    await cookieSession.end();
    route(BASE);
  };

  return (
    <>
      <a class="skip-link" href="#main">
        {t('ui.skip')}
      </a>
      <Header
        brand={t('admin.brand')}
        home={BASE}
        items={signedIn ? nav() : []}
        aside={
          signedIn && (
            <button type="button" class="secondary" onClick={() => void signOut()}>
              {t('ui.signOut')}
            </button>
          )
        }
      />
      <main id="main">
        {signedIn ? (
          <Pages />
        ) : (
          signedIn === false && (
            <SignIn
              ended={ended}
              onSignedIn={(session: ConsoleSession) => {
                cookieSession.setCurrent(session);
                setSignedIn(true);
                setEnded(false);
              }}
            />
          )
        )}
      </main>
    </>
  );
}

function Pages() {
  return (
    <Routes>
      <Route path="/" component={Dashboard} />
      <Route path={BASE} component={Dashboard} />
      <Route path={`${BASE}/accounts`} component={Accounts} />
      <Route path={`${BASE}/accounts/:id`} component={AccountPage} />
      <Route path={`${BASE}/moderation`} component={Moderation} />
      <Route path={`${BASE}/tariffs`} component={Tariffs} />
      <Route path={`${BASE}/connectors`} component={Connectors} />
      <Route path={`${BASE}/routes`} component={RoutesPage} />
      <Route path={`${BASE}/margins`} component={Margins} />
      <Route path={`${BASE}/unrouted`} component={Unrouted} />
      <Route path={`${BASE}/holds`} component={Holds} />
      <Route path={`${BASE}/smpp-binds`} component={SmppBinds} />
      <Route path={`${BASE}/stop-list`} component={StopList} />
    </Routes>
  );
}
