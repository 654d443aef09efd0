import { useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { t } from '../../shared/i18n/index.js';
import { TextField } from '../../shared/ui.js';
import { anonymous, type Session } from '../session.js';

/** Sign-in with a login and password, or with a system token (TOKEN_2). */
export function SignIn({ onSignedIn, ended }: { onSignedIn: (session: Session) => void; ended: boolean }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const [message, setMessage] = useState(ended ? t('app.signIn.ended') : '');

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = token.trim() ? { token: token.trim() } : { login: login.trim(), password };
    if (!token.trim() && (!login.trim() || !password)) {
      setFailed(true);
      setMessage(t('app.signIn.missing'));
      return;
    }
    setBusy(true);
    setFailed(false);
    setMessage(t('app.signIn.busy'));
    try {
      // The answer's tokens are for API clients: the page keeps none, its calls go with the session cookie.
      const {
        accountId,
        accountName,
        login: user,
        expiresAt,
        csrfToken,
      } = await anonymous.post('/app/v1/session', {
        body,
      });
      setMessage('');
      onSignedIn({ accountId, accountName, login: user, expiresAt, csrfToken });
    } catch (error) {
      setFailed(true);
      setMessage(t('app.signIn.failed', { error: errorText(error) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page narrow" aria-labelledby="page-title">
      <h1 id="page-title">{t('app.signIn.title')}</h1>
      <form class="card" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset>
          <legend>{t('app.signIn.withPassword')}</legend>
          <TextField label={t('app.signIn.login')} value={login} onValue={setLogin} autoComplete="username" />
          <TextField
            label={t('app.signIn.password')}
            type="password"
            value={password}
            onValue={setPassword}
            autoComplete="current-password"
          />
        </fieldset>
        <p class="or">{t('app.signIn.or')}</p>
        <fieldset>
          <legend>{t('app.signIn.withToken')}</legend>
          <TextField
            label={t('app.signIn.token')}
            type="password"
            value={token}
            onValue={setToken}
            autoComplete="off"
            hint={t('app.signIn.tokenHint')}
          />
        </fieldset>
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
