import { useState } from 'preact/hooks';
import { call } from '../api';
import { session } from '../session';
import { ActionForm, Field, Loading, Page, useGet } from '../ui';

/** One's own account: roles, password (PUT /me/password ends one's other sessions) and second factor. */
export function AccountPage() {
  const me = session.me();
  const [done, setDone] = useState(false);
  return (
    <Page title="Your account">
      <dl class="facts">
        <dt>Username</dt><dd>{me?.username}</dd>
        <dt>Name</dt><dd>{me?.displayName}</dd>
        <dt>Roles</dt><dd>{me?.roles.join(', ')}</dd>
      </dl>
      <p>Your integration keys: <a href="#/admin/keys">Administration › API keys</a>.</p>
      <h2>Change your password</h2>
      <p class="muted">Your other sessions end; this one stays.</p>
      <ActionForm label="Change password" busyLabel="Changing…" onSubmit={async (form) => {
        setDone(false);
        await call('PUT', '/me/password', { body: { currentPassword: String(form.get('current')), newPassword: String(form.get('next')) } });
        setDone(true);
      }}>
        <Field label="Current password">{(id) => <input id={id} name="current" type="password" autocomplete="current-password" required maxLength={1024} />}</Field>
        <Field label="New password" hint="At least the length the installation asks for.">{(id, d) => <input id={id} name="next" type="password" autocomplete="new-password" required maxLength={1024} aria-describedby={d} />}</Field>
      </ActionForm>
      {done && <p class="notice" role="status">Your password was changed.</p>}
      <SecondFactor />
    </Page>
  );
}

/** GET /me/second-factor; enrolment (POST /me/second-factor: secret and otpauth URI, once) and its confirmation (ten backup codes, once). */
function SecondFactor() {
  const state = useGet<{ status: string; backupCodesLeft: number }>('/me/second-factor');
  const [begun, setBegun] = useState<{ secret: string; otpauthUri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const status = state.data?.status;
  return (
    <section aria-labelledby="second-factor">
      <h2 id="second-factor">Second factor</h2>
      <Loading loaded={state} />
      {status === 'active' && !codes && <p>A second factor (TOTP) protects your sign-in; {state.data!.backupCodesLeft} backup codes left. An administrator can reset it.</p>}
      {codes && (
        <div class="secret" role="status">
          <p><strong>Your backup codes: keep them somewhere safe, they are shown only now.</strong> Each works once.</p>
          <ul>{codes.map((c) => <li><code>{c}</code></li>)}</ul>
          <button type="button" class="secondary" onClick={() => { setCodes(null); state.reload(); }}>I have kept them</button>
        </div>
      )}
      {status && status !== 'active' && !begun && (
        <ActionForm label="Set up a second factor" busyLabel="Starting…" class="inline" onSubmit={async () => setBegun((await call('POST', '/me/second-factor')).body)} />
      )}
      {begun && (
        <>
          <div class="secret">
            <p>Add this account to your authenticator app with the secret (or the otpauth link), then confirm with a code. The secret is shown only now.</p>
            <p>Secret: <code>{begun.secret}</code></p>
            <p>Link: <code>{begun.otpauthUri}</code></p>
          </div>
          <ActionForm label="Confirm" busyLabel="Confirming…" class="inline" onSubmit={async (f) => {
            const r = await call<{ backupCodes: string[] }>('POST', '/me/second-factor/confirmation', { body: { code: String(f.get('code')).trim() } });
            setBegun(null); setCodes(r.body.backupCodes);
          }}>
            <Field label="Code from the app">{(id) => <input id={id} name="code" autocomplete="one-time-code" inputMode="numeric" required maxLength={32} />}</Field>
          </ActionForm>
        </>
      )}
    </section>
  );
}
