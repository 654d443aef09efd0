import { useEffect, useState } from 'preact/hooks';
import { onUnauthorized, request } from '../shared/api.js';
import { match, navigate, useLocation } from '../shared/router.js';
import { Header, type NavItem } from '../shared/ui.js';
import { ApiKeys } from './pages/ApiKeys.js';
import { Dashboard } from './pages/Dashboard.js';
import { Inbounds } from './pages/Inbounds.js';
import { MessagePage } from './pages/MessagePage.js';
import { Messages } from './pages/Messages.js';
import { Send } from './pages/Send.js';
import { SenderNames } from './pages/SenderNames.js';
import { SignIn } from './pages/SignIn.js';
import { Statistics } from './pages/Statistics.js';
import { Templates } from './pages/Templates.js';
import { loadSession, type Session, setCurrentSession } from './session.js';

export const BASE = '/app';

const NAV: readonly NavItem[] = [
  { href: `${BASE}`, label: 'Dashboard', prefix: false },
  { href: `${BASE}/messages`, label: 'Messages' },
  { href: `${BASE}/send`, label: 'Send' },
  { href: `${BASE}/sender-names`, label: 'Sender names' },
  { href: `${BASE}/templates`, label: 'Templates' },
  { href: `${BASE}/inbounds`, label: 'Inbounds' },
  { href: `${BASE}/statistics`, label: 'Statistics' },
  { href: `${BASE}/api-keys`, label: 'API keys' },
];

/** The personal account: sign-in, then the pages of NAV. */
export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [ended, setEnded] = useState(false);
  const { path } = useLocation();

  useEffect(() => {
    onUnauthorized(() => {
      setCurrentSession(undefined);
      setSession(undefined);
      setEnded(true);
    });
  }, []);

  const signedIn = (next: Session) => {
    setCurrentSession(next);
    setSession(next);
    setEnded(false);
  };
  const signOut = async () => {
    const system = session?.system;
    setCurrentSession(undefined);
    setSession(undefined);
    setEnded(false);
    if (system) await request('DELETE', `${BASE}/v1/session`, { auth: `Basic ${system}` }).catch(() => undefined);
    navigate(BASE);
  };

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header
        brand="Herald"
        home={BASE}
        items={session ? NAV : []}
        aside={
          session && (
            <>
              <span class="who" data-testid="account-name">
                {session.accountName}
                {session.login ? ` (${session.login})` : ''}
              </span>
              <button type="button" class="secondary" onClick={() => void signOut()}>
                Sign out
              </button>
            </>
          )
        }
      />
      <main id="main">{session ? <Routes path={path} /> : <SignIn onSignedIn={signedIn} ended={ended} />}</main>
    </>
  );
}

function Routes({ path }: { path: string }) {
  let params: Record<string, string> | undefined;
  if (path === BASE || path === '/') return <Dashboard />;
  if (path === `${BASE}/messages`) return <Messages />;
  if ((params = match(`${BASE}/messages/:uuid`, path))) return <MessagePage uuid={params.uuid!} />;
  if (path === `${BASE}/send`) return <Send />;
  if (path === `${BASE}/sender-names`) return <SenderNames />;
  if (path === `${BASE}/templates`) return <Templates />;
  if (path === `${BASE}/inbounds`) return <Inbounds />;
  if (path === `${BASE}/statistics`) return <Statistics />;
  if (path === `${BASE}/api-keys`) return <ApiKeys />;
  return (
    <section class="page">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. Choose a page from the menu.
      </p>
    </section>
  );
}
