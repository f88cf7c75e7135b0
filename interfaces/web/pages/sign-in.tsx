import { useState } from 'preact/hooks';
import { call, ApiError } from '../api';
import { Me, session } from '../session';
import { Field, ProblemNote } from '../ui';

interface Challenge { challenge: string; expiresAt: string }

/**
 * POST /auth/sign-in with a password; an account with a second factor is answered a challenge
 * (401 second-factor-required), which POST /auth/second-factor completes with a TOTP code or a
 * backup code. Then GET /me for the roles the interface follows.
 */
export function SignIn() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [backup, setBackup] = useState(false);
  const signedIn = async (token: string) => {
    session.signedIn(token, null as unknown as Me);
    session.known((await call<Me>('GET', '/me')).body);
  };
  const attempt = (fn: () => Promise<void>) => async (e: Event) => {
    e.preventDefault();
    setBusy(true); setError(null);
    try { await fn(); } catch (err) { setError(err as ApiError); } finally { setBusy(false); }
  };
  const withPassword = attempt(async () => {
    const form = new FormData(document.getElementById('sign-in') as HTMLFormElement);
    try {
      const r = await call<{ token: string }>('POST', '/auth/sign-in', { body: { username: String(form.get('username') ?? ''), password: String(form.get('password') ?? '') } });
      await signedIn(r.body.token);
    } catch (err) {
      if (err instanceof ApiError && err.kind === 'second-factor-required') { setChallenge(err.problem as unknown as Challenge); return; }
      throw err;
    }
  });
  const withCode = attempt(async () => {
    const form = new FormData(document.getElementById('second-factor') as HTMLFormElement);
    const code = String(form.get('code') ?? '').trim();
    try {
      const r = await call<{ token: string }>('POST', '/auth/second-factor', { body: { challenge: challenge!.challenge, ...(backup ? { backupCode: code } : { code }) } });
      await signedIn(r.body.token);
    } catch (err) {
      if (err instanceof ApiError && err.kind === 'second-factor-challenge-ended') setChallenge(null);
      throw err;
    }
  });
  const brand = document.querySelector('meta[name=application-name]')?.getAttribute('content') ?? 'Vigil';
  const shown = error && error.status === 401 && !challenge && error.kind !== 'second-factor-challenge-ended'
    ? new ApiError({ ...error.problem, detail: 'The username or the password is not right.' }) : error;
  return (
    <main id="main" class="sign-in">
      <h1>{brand}</h1>
      {session.ended() && <p class="notice" role="status">Your session ended; sign in again.</p>}
      {!challenge ? (
        <form id="sign-in" class="stack" onSubmit={withPassword} aria-busy={busy}>
          <Field label="Username">{(id) => <input id={id} name="username" autocomplete="username" required maxLength={100} />}</Field>
          <Field label="Password">{(id) => <input id={id} name="password" type="password" autocomplete="current-password" required maxLength={1024} />}</Field>
          <ProblemNote error={shown} />
          <div><button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button></div>
        </form>
      ) : (
        <form id="second-factor" class="stack" onSubmit={withCode} aria-busy={busy}>
          <p>This account has a second factor.</p>
          <Field label={backup ? 'Backup code' : 'Code from your authenticator app'}>{(id) => <input id={id} name="code" autocomplete="one-time-code" inputMode={backup ? 'text' : 'numeric'} required maxLength={32} />}</Field>
          <ProblemNote error={shown} />
          <div class="filters">
            <button type="submit" disabled={busy}>{busy ? 'Checking…' : 'Continue'}</button>
            <button type="button" class="secondary" onClick={() => setBackup(!backup)}>{backup ? 'Use an app code' : 'Use a backup code'}</button>
            <button type="button" class="secondary" onClick={() => { setChallenge(null); setError(null); }}>Start again</button>
          </div>
        </form>
      )}
    </main>
  );
}
