import { useState } from 'preact/hooks';
import { ApiError, errorText } from '../../shared/api.js';
import { t } from '../../shared/i18n/index.js';
import { TextField } from '../../shared/ui.js';

/** The operator pastes the admin token (HERALD_ADMIN_TOKEN); it is checked with GET /admin/v1/accounts. */
export function SignIn({ onSignedIn, ended }: { onSignedIn: (token: string) => void; ended: boolean }) {
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
      const response = await fetch('/admin/v1/accounts?per_page=1', {
        headers: { authorization: `Bearer ${value}`, accept: 'application/json' },
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => undefined)) as
          { error?: { msg?: string; code?: number } } | undefined;
        throw new ApiError(response.status, body?.error?.code, body?.error?.msg ?? `HTTP ${response.status}`);
      }
      setMessage('');
      onSignedIn(value);
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
