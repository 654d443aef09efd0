import { useEffect, useState } from 'preact/hooks';
import { onUnauthorized } from '../shared/api.js';
import { match, navigate, useLocation } from '../shared/router.js';
import { Header, type NavItem } from '../shared/ui.js';
import { AccountPage } from './pages/AccountPage.js';
import { Accounts } from './pages/Accounts.js';
import { Connectors } from './pages/Connectors.js';
import { Moderation } from './pages/Moderation.js';
import { SignIn } from './pages/SignIn.js';
import { Tariffs } from './pages/Tariffs.js';
import { currentToken, setToken } from './session.js';

export const BASE = '/admin';

const NAV: readonly NavItem[] = [
  { href: `${BASE}/accounts`, label: 'Accounts' },
  { href: `${BASE}/moderation`, label: 'Moderation' },
  { href: `${BASE}/tariffs`, label: 'Tariffs' },
  { href: `${BASE}/connectors`, label: 'Connectors' },
];

/** The operator console: the admin token, then the pages of NAV. */
export function App() {
  const [signedIn, setSignedIn] = useState(currentToken() !== undefined);
  const [ended, setEnded] = useState(false);
  const { path } = useLocation();

  useEffect(() => {
    onUnauthorized(() => {
      setToken(undefined);
      setSignedIn(false);
      setEnded(true);
    });
  }, []);

  const signOut = () => {
    setToken(undefined);
    setSignedIn(false);
    setEnded(false);
    navigate(BASE);
  };

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header
        brand="Herald console"
        home={`${BASE}/accounts`}
        items={signedIn ? NAV : []}
        aside={
          signedIn && (
            <button type="button" class="secondary" onClick={signOut}>
              Sign out
            </button>
          )
        }
      />
      <main id="main">
        {signedIn ? (
          <Routes path={path} />
        ) : (
          <SignIn
            ended={ended}
            onSignedIn={(token) => {
              setToken(token);
              setSignedIn(true);
              setEnded(false);
            }}
          />
        )}
      </main>
    </>
  );
}

function Routes({ path }: { path: string }) {
  let params: Record<string, string> | undefined;
  if (path === BASE || path === '/' || path === `${BASE}/accounts`) return <Accounts />;
  if ((params = match(`${BASE}/accounts/:id`, path))) return <AccountPage id={Number(params.id)} />;
  if (path === `${BASE}/moderation`) return <Moderation />;
  if (path === `${BASE}/tariffs`) return <Tariffs />;
  if (path === `${BASE}/connectors`) return <Connectors />;
  return (
    <section class="page">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. Choose a page from the menu.
      </p>
    </section>
  );
}
