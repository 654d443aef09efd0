import { useState } from 'preact/hooks';
import { ApiError, errorText } from '../../shared/api.js';
import { t } from '../../shared/i18n/index.js';
import { TextField } from '../../shared/ui.js';
import type { ConsoleSession } from '../session.js';

/**
 * The operator pastes the admin token (HERALD_ADMIN_TOKEN) once: POST /admin/v1/session checks it and sets the
 * console's session cookie, which every tab of the browser then shares.
 */
export function SignIn({ onSignedIn, ended }: { onSignedIn: (session: ConsoleSession) => void; ended: boolean }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState(ended ? t('admin.signIn.ended') : '');
  const [failed, setFailed] = useState(ended);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = token.trim();
    if (!value) {
      setFailed(true);
      setMessage(t('admin.signIn.missing'));
      return;
    }
    setBusy(true);
    setFailed(false);
    setMessage(t('admin.signIn.busy'));
    try {
      // A plain fetch: a 401 here is this form's error, not a session that ended (shared/api's onUnauthorized).
      const response = await fetch('/admin/v1/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ token: value }),
        credentials: 'same-origin',
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => undefined)) as
          { error?: { msg?: string; code?: number } } | undefined;
        throw new ApiError(response.status, body?.error?.code, body?.error?.msg ?? `HTTP ${response.status}`);
      }
      setMessage('');
      onSignedIn((await response.json()) as ConsoleSession);
    } catch (error) {
      setFailed(true);
      setMessage(t('app.signIn.failed', { error: errorText(error) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page narrow" aria-labelledby="page-title">
      <h1 id="page-title">{t('admin.title')}</h1>
      <form class="card" onSubmit={(e) => void submit(e)} noValidate>
        <TextField
          label={t('admin.signIn.token')}
          type="password"
          value={token}
          onValue={setToken}
          autoComplete="off"
          hint={t('admin.signIn.tokenHint')}
        />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {t('ui.signIn')}
          </button>
        </div>
        <p class={`notice ${failed ? 'error' : 'info'}`} role="status" aria-live="polite">
          {message}
        </p>
      </form>
    </section>
  );
}
