import { useEffect, useState } from 'preact/hooks';
import { Route, useLocation } from 'preact-iso';
import { onUnauthorized } from '../shared/api.js';
import { t } from '../shared/i18n/index.js';
import { Routes } from '../shared/routes.js';
import { Header, type NavItem } from '../shared/ui.js';
import { ApiKeys } from './pages/ApiKeys.js';
import { SmppBinds } from './pages/SmppBinds.js';
import { Consents } from './pages/Consents.js';
import { Dashboard } from './pages/Dashboard.js';
import { DispatchPage } from './pages/DispatchPage.js';
import { Dispatches } from './pages/Dispatches.js';
import { Inbounds } from './pages/Inbounds.js';
import { MessagePage } from './pages/MessagePage.js';
import { OptOut } from './pages/OptOut.js';
import { Messages } from './pages/Messages.js';
import { Send } from './pages/Send.js';
import { SendCascade } from './pages/SendCascade.js';
import { SenderNames } from './pages/SenderNames.js';
import { Settings } from './pages/Settings.js';
import { SignIn } from './pages/SignIn.js';
import { Statistics } from './pages/Statistics.js';
import { StopList } from './pages/StopList.js';
import { Templates } from './pages/Templates.js';
import { Verifiers } from './pages/Verifiers.js';
import { session as cookieSession, type Session } from './session.js';

export const BASE = '/app';

const nav = (): readonly NavItem[] => [
  { href: `${BASE}`, label: t('app.nav.dashboard'), prefix: false },
  { href: `${BASE}/messages`, label: t('app.nav.messages') },
  { href: `${BASE}/send`, label: t('app.nav.send') },
  { href: `${BASE}/dispatches`, label: t('app.nav.dispatches') },
  { href: `${BASE}/sender-names`, label: t('app.nav.senderNames') },
  { href: `${BASE}/templates`, label: t('app.nav.templates') },
  { href: `${BASE}/inbounds`, label: t('app.nav.inbounds') },
  { href: `${BASE}/opt-out`, label: t('app.nav.optOut') },
  { href: `${BASE}/verifiers`, label: t('app.nav.verifiers') },
  { href: `${BASE}/stop-list`, label: t('app.nav.stopList') },
  { href: `${BASE}/statistics`, label: t('app.nav.statistics') },
  { href: `${BASE}/consents`, label: t('app.nav.consents') },
  { href: `${BASE}/settings`, label: t('app.nav.settings') },
  { href: `${BASE}/api-keys`, label: t('app.nav.apiKeys') },
  { href: `${BASE}/smpp`, label: t('app.nav.smpp') },
];

/** The personal account: sign-in, then the pages of NAV (inside preact-iso's LocationProvider, main.tsx). */
export function App() {
  // undefined while the browser's session cookie is being asked about (a new tab, a reload), then the session or null.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const { route } = useLocation();

  useEffect(() => {
    onUnauthorized(() => {
      cookieSession.setCurrent(undefined);
      setSession(null);
      setEnded(true);
    });
    void cookieSession.resume().then((resumed) => {
      cookieSession.setCurrent(resumed);
      setSession((now) => (now === undefined ? (resumed ?? null) : now));
    });
  }, []);

  const signedIn = (next: Session) => {
    cookieSession.setCurrent(next);
    setSession(next);
    setEnded(false);
  };
  const signOut = async () => {
    setSession(null);
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
        brand={t('app.brand')}
        home={BASE}
        items={session ? nav() : []}
        aside={
          session && (
            <>
              <span class="who" data-testid="account-name">
                {session.accountName}
                {session.login ? ` (${session.login})` : ''}
              </span>
              <button type="button" class="secondary" onClick={() => void signOut()}>
                {t('ui.signOut')}
              </button>
            </>
          )
        }
      />
      <main id="main">{session ? <Pages /> : session === null && <SignIn onSignedIn={signedIn} ended={ended} />}</main>
    </>
  );
}

function Pages() {
  return (
    <Routes>
      <Route path="/" component={Dashboard} />
      <Route path={BASE} component={Dashboard} />
      <Route path={`${BASE}/messages`} component={Messages} />
      <Route path={`${BASE}/messages/:uuid`} component={MessagePage} />
      <Route path={`${BASE}/send`} component={Send} />
      <Route path={`${BASE}/send/cascade`} component={SendCascade} />
      <Route path={`${BASE}/dispatches`} component={Dispatches} />
      <Route path={`${BASE}/dispatches/:id`} component={DispatchPage} />
      <Route path={`${BASE}/sender-names`} component={SenderNames} />
      <Route path={`${BASE}/templates`} component={Templates} />
      <Route path={`${BASE}/inbounds`} component={Inbounds} />
      <Route path={`${BASE}/opt-out`} component={OptOut} />
      <Route path={`${BASE}/verifiers`} component={Verifiers} />
      <Route path={`${BASE}/stop-list`} component={StopList} />
      <Route path={`${BASE}/statistics`} component={Statistics} />
      <Route path={`${BASE}/consents`} component={Consents} />
      <Route path={`${BASE}/settings`} component={Settings} />
      <Route path={`${BASE}/api-keys`} component={ApiKeys} />
      <Route path={`${BASE}/smpp`} component={SmppBinds} />
    </Routes>
  );
}
