import { useState } from 'preact/hooks';
import { call } from '../api';
import { session } from '../session';
import { ActionForm, Field, Page } from '../ui';

/** One's own account: roles, and changing one's password (PUT /me/password ends one's other sessions). */
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
      <p class="muted">Your other sessions end; this one stays. A second factor is not offered by this installation's API yet.</p>
      <ActionForm label="Change password" busyLabel="Changing…" onSubmit={async (form) => {
        setDone(false);
        await call('PUT', '/me/password', { body: { currentPassword: String(form.get('current')), newPassword: String(form.get('next')) } });
        setDone(true);
      }}>
        <Field label="Current password">{(id) => <input id={id} name="current" type="password" autocomplete="current-password" required maxLength={1024} />}</Field>
        <Field label="New password" hint="At least the length the installation asks for.">{(id, d) => <input id={id} name="next" type="password" autocomplete="new-password" required maxLength={1024} aria-describedby={d} />}</Field>
      </ActionForm>
      {done && <p class="notice" role="status">Your password was changed.</p>}
    </Page>
  );
}
