import { useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { TextField } from '../../shared/ui.js';

/** The operator pastes the admin token (HERALD_ADMIN_TOKEN); it is checked with GET /admin/v1/accounts. */
export function SignIn({ onSignedIn, ended }: { onSignedIn: (token: string) => void; ended: boolean }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState(ended ? 'The admin token was refused. Sign in again.' : '');
  const [failed, setFailed] = useState(ended);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = token.trim();
    if (!value) {
      setFailed(true);
      setMessage('Enter the admin token.');
      return;
    }
    setBusy(true);
    setFailed(false);
    setMessage('Checking the token…');
    try {
      // A plain fetch: a 401 here is this form's error, not a session that ended (shared/api's onUnauthorized).
      const response = await fetch('/admin/v1/accounts?per_page=1', {
        headers: { authorization: `Bearer ${value}`, accept: 'application/json' },
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => undefined)) as
          { error?: { msg?: string; code?: number } } | undefined;
        throw new Error(body?.error ? `${body.error.msg} (${body.error.code})` : `HTTP ${response.status}`);
      }
      setMessage('');
      onSignedIn(value);
    } catch (error) {
      setFailed(true);
      setMessage(`Sign-in failed: ${errorText(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page narrow" aria-labelledby="page-title">
      <h1 id="page-title">Operator console</h1>
      <form class="card" onSubmit={(e) => void submit(e)} noValidate>
        <TextField
          label="Admin token"
          type="password"
          value={token}
          onValue={setToken}
          autoComplete="off"
          hint="HERALD_ADMIN_TOKEN of this Herald."
        />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </div>
        <p class={`notice ${failed ? 'error' : 'info'}`} role="status" aria-live="polite">
          {message}
        </p>
      </form>
    </section>
  );
}
