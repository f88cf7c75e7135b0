import { useEffect, useState } from 'preact/hooks';
import { call, ApiError } from '../api';
import { Me, session } from '../session';
import { Field, ProblemNote } from '../ui';

interface Challenge { challenge: string; expiresAt: string }

/** What a refused single sign-on means to the person (the callback names the problem type). */
const SIGN_ON_REFUSED: Record<string, string> = {
  'sso-state-unknown': 'The single sign-on expired, was already used, or was begun in another tab or browser; try again.',
  'sso-not-verified': "The identity provider's answer did not verify, or it refused the sign-in; try again.",
  'sso-second-factor-required': 'Your identity provider did not state a second factor, which this installation requires: sign in there with one.',
  'sso-link-refused': 'Single sign-on cannot be tied to your account here; an administrator can help.',
  'sso-account-deactivated': 'Your account is deactivated.',
  'sso-provider-unreachable': 'The identity provider cannot be reached; try again later.',
};

/** The single sign-on the server offers (a meta element of the page, set while an issuer is configured). */
const signOnOffered = () => document.querySelector('meta[name=vigil-sign-on]')?.getAttribute('content') === 'oidc';

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
  // Back from the identity provider (the callback's 302): take the session it opened, or say why not.
  useEffect(() => {
    const back = new URLSearchParams(location.search);
    if (!back.has('signed_on') && !back.has('sign_on_refused')) return;
    history.replaceState(null, '', `/${location.hash}`);
    const refused = back.get('sign_on_refused');
    if (refused !== null) {
      const kind = refused.replace(/[^a-z-]/g, '');
      setError(new ApiError({ status: 0, title: 'Single sign-on refused', detail: SIGN_ON_REFUSED[kind] ?? 'The single sign-on did not complete; try again.', type: `urn:vigil:problem:${kind}` }));
      return;
    }
    setBusy(true);
    call<{ token: string }>('POST', '/auth/oidc/handoff', { cookies: true })
      .then((r) => signedIn(r.body.token))
      .catch((err: ApiError) => setError(new ApiError({ status: 0, title: 'Single sign-on not completed', detail: `${err.message} (the session waits a minute for this page)` })))
      .finally(() => setBusy(false));
  }, []);
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
          {signOnOffered() && (
            <p class="sign-on">
              <a class="button secondary" href={`/api/v1/auth/oidc/login?return_to=${encodeURIComponent(`/${location.hash}`)}`}>Sign in with single sign-on</a>
            </p>
          )}
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
