import { useState } from 'preact/hooks';
import { call, ApiError } from '../api';
import { Me, session } from '../session';
import { Field, ProblemNote } from '../ui';

/** POST /auth/sign-in with a password, then GET /me for the roles the interface follows. */
export function SignIn() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true); setError(null);
    try {
      const signed = await call<{ token: string }>('POST', '/auth/sign-in', { body: { username: String(form.get('username') ?? ''), password: String(form.get('password') ?? '') } });
      session.signedIn(signed.body.token, null as unknown as Me);
      const me = await call<Me>('GET', '/me');
      session.known(me.body);
    } catch (err) {
      setError(err as ApiError);
    } finally { setBusy(false); }
  };
  const brand = document.querySelector('meta[name=application-name]')?.getAttribute('content') ?? 'Vigil';
  return (
    <main id="main" class="sign-in">
      <h1>{brand}</h1>
      {session.ended() && <p class="notice" role="status">Your session ended; sign in again.</p>}
      <form class="stack" onSubmit={submit} aria-busy={busy}>
        <Field label="Username">{(id) => <input id={id} name="username" autocomplete="username" required maxLength={100} />}</Field>
        <Field label="Password">{(id) => <input id={id} name="password" type="password" autocomplete="current-password" required maxLength={1024} />}</Field>
        {error && <ProblemNote error={error.status === 401 ? new ApiError({ ...error.problem, detail: 'The username or the password is not right.' }) : error} />}
        <div><button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button></div>
      </form>
    </main>
  );
}
