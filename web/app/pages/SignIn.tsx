import { useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { TextField } from '../../shared/ui.js';
import { anonymous, type Session } from '../session.js';

/** Sign-in with a login and password, or with a system token (TOKEN_2). */
export function SignIn({ onSignedIn, ended }: { onSignedIn: (session: Session) => void; ended: boolean }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState(ended ? 'Your session has ended. Sign in again.' : '');

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = token.trim() ? { token: token.trim() } : { login: login.trim(), password };
    if (!token.trim() && (!login.trim() || !password)) {
      setMessage('Enter a login and a password, or a system token.');
      return;
    }
    setBusy(true);
    setMessage('Signing in…');
    try {
      const session = await anonymous.post('/app/v1/session', { body });
      setMessage('');
      onSignedIn(session);
    } catch (error) {
      setMessage(`Sign-in failed: ${errorText(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page narrow" aria-labelledby="page-title">
      <h1 id="page-title">Sign in to your account</h1>
      <form class="card" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset>
          <legend>With a login and password</legend>
          <TextField label="Login" value={login} onValue={setLogin} autoComplete="username" />
          <TextField
            label="Password"
            type="password"
            value={password}
            onValue={setPassword}
            autoComplete="current-password"
          />
        </fieldset>
        <p class="or">or</p>
        <fieldset>
          <legend>With a system token</legend>
          <TextField
            label="System token"
            type="password"
            value={token}
            onValue={setToken}
            autoComplete="off"
            hint="TOKEN_2 of your account, from your account manager."
          />
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </div>
        <p
          class={`notice ${message.startsWith('Sign-in failed') || message.startsWith('Enter') ? 'error' : 'info'}`}
          role="status"
          aria-live="polite"
        >
          {message}
        </p>
      </form>
    </section>
  );
}
