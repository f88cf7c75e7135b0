import { useState } from 'preact/hooks';
import type { PageProps } from '.';
import { call } from '../api';
import { may } from '../roles';
import { href } from '../router';
import type { Me } from '../session';
import { Agents, ScimToken, Siem } from './admin-integrations';
import { ActionForm, Field, Loading, Page, Pager, ProblemNote, Table, text, useGet, When } from '../ui';

const ROLES = ['administrator', 'ciso', 'security_lead', 'platform_governor', 'auditor', 'writer', 'reader'];
const SCOPES = ['read', 'scan', 'sarif_import', 'report_import', 'agent'];

/** `after`: the page of a paged list (accounts, teams, keys, sources, credentials) the address names. */
interface Section { key: string; label: string; shown: (me: Me) => boolean; render: (me: Me, after?: string) => preact.ComponentChildren }
const SECTIONS: Section[] = [
  { key: 'accounts', label: 'Accounts', shown: may.administer, render: (_me, after) => <Accounts after={after} /> },
  { key: 'teams', label: 'Teams and grants', shown: may.administer, render: (_me, after) => <Teams after={after} /> },
  { key: 'keys', label: 'API keys', shown: () => true, render: (me, after) => <Keys me={me} after={after} /> },
  { key: 'sources', label: 'Sources', shown: may.listSources, render: (me, after) => <Sources me={me} after={after} /> },
  { key: 'credentials', label: 'Credentials', shown: may.administer, render: (_me, after) => <Credentials after={after} /> },
  { key: 'settings', label: 'Settings', shown: () => true, render: (me) => <Settings me={me} /> },
  { key: 'feeds', label: 'Feeds', shown: may.administer, render: () => <Feeds /> },
  { key: 'agents', label: 'Agents', shown: may.administer, render: () => <Agents /> },
  { key: 'siem', label: 'SIEM', shown: may.configureSiem, render: (me) => <Siem me={me} /> },
  { key: 'scim', label: 'SCIM token', shown: may.administer, render: () => <ScimToken /> },
];

/** Administration, one section per tab; a role sees the sections the API lets it read. */
export function Admin({ params, query, me }: PageProps) {
  const shown = SECTIONS.filter((s) => s.shown(me));
  const current = shown.find((s) => s.key === params.section) ?? shown[0];
  return (
    <Page title={`Administration: ${current.label}`}>
      <ul class="tabs">{shown.map((s) => <li><a href={href(`/admin/${s.key}`)} aria-current={s === current ? 'page' : undefined}>{s.label}</a></li>)}</ul>
      {current.render(me, query.get('after') ?? undefined)}
    </Page>
  );
}

const roleBoxes = (name: string, checked: string[] = []) => (
  <fieldset><legend>Roles</legend>
    <div class="filters">{ROLES.map((r) => <label class="check"><input type="checkbox" name={name} value={r} defaultChecked={checked.includes(r)} /> {r.replace(/_/g, ' ')}</label>)}</div>
  </fieldset>
);

/** Rows per page of the administration lists (the API pages them by id, Link rel="next"). */
const PAGE = 50;

function Accounts({ after }: { after?: string }) {
  const accounts = useGet<any[]>('/accounts', { limit: PAGE, after });
  const [editing, setEditing] = useState<any | null>(null);
  const [created, setCreated] = useState(0);
  return (
    <>
      <Loading loaded={accounts} />
      <Table caption="Accounts" rowKey={(a) => a.id} rows={accounts.data} columns={[
        { label: 'Id', class: 'num', cell: (a) => a.id },
        { label: 'Username', cell: (a) => a.username },
        { label: 'Name', cell: (a) => a.displayName },
        { label: 'Roles', cell: (a) => a.roles.join(', ') },
        { label: 'Active', cell: (a) => (a.active ? 'yes' : 'no') },
        { label: 'Created', cell: (a) => <When at={a.createdAt} /> },
        { label: 'Change', cell: (a) => <button type="button" class="secondary" onClick={() => setEditing(a)} aria-label={`Change ${a.username}`}>Change</button> },
      ]} />
      {editing && (
        <section aria-labelledby="edit-account">
          <h2 id="edit-account">Change {editing.username}</h2>
          <ActionForm key={editing.id} label="Save account" onSubmit={async (f) => {
            await call('PATCH', `/accounts/${editing.id}`, { body: { displayName: text(f, 'displayName'), roles: f.getAll('roles').map(String), active: f.get('active') === 'on' } });
            setEditing(null); accounts.reload();
          }}>
            <Field label="Display name">{(id) => <input id={id} name="displayName" maxLength={200} defaultValue={editing.displayName} />}</Field>
            {roleBoxes('roles', editing.roles)}
            <label class="check"><input type="checkbox" name="active" defaultChecked={editing.active} /> Active (deactivating ends its sessions)</label>
          </ActionForm>
          <ActionForm key={`f${editing.id}`} label="Reset second factor" class="inline" onSubmit={async () => { await call('DELETE', `/accounts/${editing.id}/second-factor`); setEditing(null); }} />
          <ActionForm key={`r${editing.id}`} label="Reset password" onSubmit={async (f) => {
            await call('POST', `/accounts/${editing.id}/password-reset`, { body: { newPassword: String(f.get('newPassword')) } });
            setEditing(null);
          }}>
            <Field label="New password" hint="Ends the account's sessions and revokes its keys.">{(id, d) => <input id={id} name="newPassword" type="password" autocomplete="new-password" required maxLength={1024} aria-describedby={d} />}</Field>
          </ActionForm>
        </section>
      )}
      <Pager path="/admin/accounts" query={{ after }} next={accounts.answer?.next ?? null} />
      <h2>New account</h2>
      <ActionForm key={`new-${created}`} label="Create account" onSubmit={async (f) => {
        await call('POST', '/accounts', { body: { username: text(f, 'username'), displayName: text(f, 'displayName'), password: String(f.get('password')), roles: f.getAll('roles').map(String) } });
        setCreated((n) => n + 1); // a fresh, empty form
        accounts.reload();
      }}>
        <Field label="Username">{(id) => <input id={id} name="username" required maxLength={100} autocomplete="off" />}</Field>
        <Field label="Display name">{(id) => <input id={id} name="displayName" maxLength={200} />}</Field>
        <Field label="Initial password">{(id) => <input id={id} name="password" type="password" autocomplete="new-password" required maxLength={1024} />}</Field>
        {roleBoxes('roles')}
      </ActionForm>
    </>
  );
}

function Teams({ after }: { after?: string }) {
  const teams = useGet<{ id: number; name: string; members: number[]; grants: { kind: string; id: number }[] }[]>('/teams', { limit: PAGE, after });
  // Every account (up to the API's largest page) to name members and offer them.
  const accounts = useGet<any[]>('/accounts', { limit: 1000 });
  const projects = useGet<any[]>('/projects', { limit: 1000 });
  const repos = useGet<any[]>('/repositories', { limit: 500 });
  const containers = useGet<any[]>('/containers', { limit: 500 });
  const nameOf = (id: number) => accounts.data?.find((a) => a.id === id)?.username ?? `account ${id}`;
  const grantName = (g: { kind: string; id: number }) => {
    const list = g.kind === 'project' ? projects.data : g.kind === 'repository' ? repos.data : containers.data;
    return `${g.kind} ${list?.find((x) => x.id === g.id)?.name ?? g.id}`;
  };
  const [error, setError] = useState<any>(null);
  const act = async (fn: () => Promise<unknown>) => { setError(null); try { await fn(); teams.reload(); } catch (e) { setError(e); } };
  return (
    <>
      <Loading loaded={teams} />
      <ProblemNote error={error} />
      {teams.data?.map((t) => (
        <fieldset>
          <legend>Team {t.name}</legend>
          <p>Members: {t.members.length === 0 ? 'none' : t.members.map((m) => <span>{nameOf(m)} <button type="button" class="secondary" aria-label={`Remove ${nameOf(m)} from ${t.name}`} onClick={() => act(() => call('DELETE', `/teams/${t.id}/members/${m}`))}>remove</button> </span>)}</p>
          <p>Grants: {t.grants.length === 0 ? 'none' : t.grants.map((g) => <span>{grantName(g)} <button type="button" class="secondary" aria-label={`Withdraw ${grantName(g)} from ${t.name}`} onClick={() => act(() => call('DELETE', `/teams/${t.id}/grants/${g.kind}/${g.id}`))}>withdraw</button> </span>)}</p>
          <div class="filters">
            <ActionForm label="Add member" class="inline" onSubmit={(f) => act(() => call('POST', `/teams/${t.id}/members`, { body: { accountId: Number(f.get('account')) } }))}>
              <Field label={`Account to add to ${t.name}`}>{(id) => <select id={id} name="account" required>{accounts.data?.filter((a) => !t.members.includes(a.id)).map((a) => <option value={a.id}>{a.username}</option>)}</select>}</Field>
            </ActionForm>
            <ActionForm label="Grant" class="inline" onSubmit={(f) => { const [kind, id] = String(f.get('grant')).split(':'); return act(() => call('POST', `/teams/${t.id}/grants`, { body: { kind, id: Number(id) } })); }}>
              <Field label={`Grant to ${t.name}`}>{(id) => (
                <select id={id} name="grant" required>
                  <optgroup label="Projects">{projects.data?.map((p) => <option value={`project:${p.id}`}>{p.name}</option>)}</optgroup>
                  <optgroup label="Repositories">{repos.data?.map((r) => <option value={`repository:${r.id}`}>{r.name}</option>)}</optgroup>
                  <optgroup label="Container images">{containers.data?.map((c) => <option value={`container:${c.id}`}>{c.name}</option>)}</optgroup>
                </select>
              )}</Field>
            </ActionForm>
          </div>
        </fieldset>
      ))}
      <Pager path="/admin/teams" query={{ after }} next={teams.answer?.next ?? null} />
      <h2>New team</h2>
      <ActionForm label="Create team" class="inline" onSubmit={async (f) => { await call('POST', '/teams', { body: { name: text(f, 'name') } }); teams.reload(); }}>
        <Field label="Team name">{(id) => <input id={id} name="name" required maxLength={200} />}</Field>
      </ActionForm>
    </>
  );
}

/** GET/POST/DELETE /api-keys: the secret appears once, in the answer to its issue, and is shown once. */
export function Keys({ me, after }: { me: Me; after?: string }) {
  const keys = useGet<any[]>('/api-keys', { limit: PAGE, after });
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<any>(null);
  return (
    <>
      {secret && (
        <div class="secret" role="status">
          <p><strong>The key {secret.name}: copy it now, it is never shown again.</strong></p>
          <p><code>{secret.key}</code></p>
          <button type="button" class="secondary" onClick={() => setSecret(null)}>I have copied it</button>
        </div>
      )}
      <Loading loaded={keys} />
      <ProblemNote error={error} />
      <Table caption={may.administer(me) ? 'Every integration key' : 'Your integration keys'} rowKey={(k) => k.id} rows={keys.data} empty="No key." columns={[
        { label: 'Id', class: 'num', cell: (k) => k.id },
        { label: 'Name', cell: (k) => k.name },
        { label: 'Prefix', cell: (k) => <code>{k.prefix}</code> },
        { label: 'Scopes', cell: (k) => k.scopes.join(', ') },
        { label: 'Account', class: 'num', cell: (k) => k.accountId },
        { label: 'State', cell: (k) => k.state },
        { label: 'Expires', cell: (k) => <When at={k.expiresAt} /> },
        { label: 'Revoke', cell: (k) => k.state === 'active' ? <button type="button" class="danger" aria-label={`Revoke key ${k.name}`} onClick={async () => { setError(null); try { await call('DELETE', `/api-keys/${k.id}`); keys.reload(); } catch (e) { setError(e); } }}>Revoke</button> : '—' },
      ]} />
      <Pager path="/admin/keys" query={{ after }} next={keys.answer?.next ?? null} />
      <h2>Issue a key</h2>
      <ActionForm label="Issue key" busyLabel="Issuing…" onSubmit={async (f) => {
        const expires = text(f, 'expires');
        const r = await call<{ name: string; key: string }>('POST', '/api-keys', { body: { name: text(f, 'name'), scopes: f.getAll('scopes').map(String), ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}) } });
        setSecret({ name: r.body.name, key: r.body.key });
        keys.reload();
      }}>
        <Field label="Key name">{(id) => <input id={id} name="name" required maxLength={100} />}</Field>
        <fieldset><legend>Scopes</legend><div class="filters">{SCOPES.map((s) => <label class="check"><input type="checkbox" name="scopes" value={s} defaultChecked={s === 'read'} /> {s}</label>)}</div></fieldset>
        <Field label="Expires on" hint="Empty: never.">{(id, d) => <input id={id} name="expires" type="date" aria-describedby={d} />}</Field>
      </ActionForm>
    </>
  );
}

function Sources({ me, after }: { me: Me; after?: string }) {
  const sources = useGet<any[]>('/sarif-sources', { limit: PAGE, after });
  const keys = useGet<any[]>(may.declareSources(me) ? '/api-keys' : null, { limit: 1000 });
  const repos = useGet<any[]>(may.declareSources(me) ? '/repositories' : null, { limit: 500 });
  const [error, setError] = useState<any>(null);
  const act = async (fn: () => Promise<unknown>) => { setError(null); try { await fn(); sources.reload(); } catch (e) { setError(e); } };
  return (
    <>
      <Loading loaded={sources} />
      <ProblemNote error={error} />
      <Table caption="Declared sources" rowKey={(s) => s.id} rows={sources.data} empty="No source declared." columns={[
        { label: 'Slug', cell: (s) => s.slug },
        { label: 'Name', cell: (s) => s.name },
        { label: 'Kinds', cell: (s) => (s.kinds ?? []).join(', ') },
        { label: 'Tools', cell: (s) => (s.tools ?? []).join(', ') },
        { label: 'For', cell: (s) => (s.repository_id ? `repository ${s.repository_id}` : s.project_id ? `project ${s.project_id}` : '—') },
        { label: 'Key', cell: (s) => `${s.api_key_id} (${s.api_key_state})` },
        { label: 'State', cell: (s) => s.state },
        ...(may.declareSources(me) ? [{ label: 'Change', cell: (s: any) => (
          <>
            <button type="button" class="secondary" onClick={() => act(() => call('POST', `/sarif-sources/${encodeURIComponent(s.slug)}/${s.state === 'enabled' ? 'disable' : 'enable'}`))}>{s.state === 'enabled' ? 'Disable' : 'Enable'}</button>{' '}
            <button type="button" class="danger" aria-label={`Remove source ${s.slug}`} onClick={() => act(() => call('DELETE', `/sarif-sources/${encodeURIComponent(s.slug)}`))}>Remove</button>
          </>
        ) }] : []),
      ]} />
      <Pager path="/admin/sources" query={{ after }} next={sources.answer?.next ?? null} />
      {may.declareSources(me) && (
        <>
          <h2>Declare a source</h2>
          <ActionForm label="Declare source" onSubmit={async (f) => {
            await call('POST', '/sarif-sources', { body: {
              slug: text(f, 'slug'), name: text(f, 'name'), api_key_id: Number(f.get('key')), repository_id: Number(f.get('repository')),
              kinds: f.getAll('kinds').map(String), tools: (text(f, 'tools') ?? '').split(',').map((t) => t.trim()).filter(Boolean),
            } });
            sources.reload();
          }}>
            <Field label="Slug">{(id) => <input id={id} name="slug" required maxLength={64} pattern="[a-z0-9-]+" />}</Field>
            <Field label="Source name">{(id) => <input id={id} name="name" required maxLength={200} />}</Field>
            <Field label="Integration key">{(id) => <select id={id} name="key" required>{keys.data?.filter((k) => k.state === 'active').map((k) => <option value={k.id}>{k.name} ({k.prefix})</option>)}</select>}</Field>
            <Field label="Repository">{(id) => <select id={id} name="repository" required>{repos.data?.map((r) => <option value={r.id}>{r.name}</option>)}</select>}</Field>
            <fieldset><legend>Kinds</legend><div class="filters">{['sarif', 'coverage', 'test_report', 'sbom'].map((k) => <label class="check"><input type="checkbox" name="kinds" value={k} defaultChecked={k === 'sarif'} /> {k}</label>)}</div></fieldset>
            <Field label="Tools" hint="Comma-separated tool names a SARIF import may carry.">{(id, d) => <input id={id} name="tools" maxLength={2000} aria-describedby={d} />}</Field>
          </ActionForm>
        </>
      )}
    </>
  );
}

function Credentials({ after }: { after?: string }) {
  const list = useGet<any[]>('/credentials', { limit: PAGE, after });
  const [error, setError] = useState<any>(null);
  return (
    <>
      <Loading loaded={list} />
      <ProblemNote error={error} />
      <Table caption="Stored credentials (secrets are never shown)" rowKey={(c) => c.id} rows={list.data} empty="No credential stored." columns={[
        { label: 'Id', class: 'num', cell: (c) => c.id },
        { label: 'Name', cell: (c) => c.name },
        { label: 'Kind', cell: (c) => c.kind.replace(/_/g, ' ') },
        { label: 'Host', cell: (c) => c.host ?? '—' },
        { label: 'Username', cell: (c) => c.username ?? '—' },
        { label: 'Remove', cell: (c) => <button type="button" class="danger" aria-label={`Remove credential ${c.name}`} onClick={async () => { setError(null); try { await call('DELETE', `/credentials/${c.id}`); list.reload(); } catch (e) { setError(e); } }}>Remove</button> },
      ]} />
      <Pager path="/admin/credentials" query={{ after }} next={list.answer?.next ?? null} />
      <div class="filters">
        <fieldset><legend>Store an SSH key</legend>
          <ActionForm label="Store SSH key" onSubmit={async (f) => { await call('POST', '/credentials/ssh-keys', { body: { name: text(f, 'name'), privateKey: String(f.get('privateKey')), knownHosts: String(f.get('knownHosts')) } }); list.reload(); }}>
            <Field label="SSH key name">{(id) => <input id={id} name="name" required maxLength={200} />}</Field>
            <Field label="Private key (no passphrase)">{(id) => <textarea id={id} name="privateKey" required rows={4} />}</Field>
            <Field label="known_hosts lines">{(id) => <textarea id={id} name="knownHosts" required rows={2} />}</Field>
          </ActionForm>
        </fieldset>
        <fieldset><legend>Store an HTTPS token</legend>
          <ActionForm label="Store token" onSubmit={async (f) => { await call('POST', '/credentials/https-tokens', { body: { name: text(f, 'name'), host: text(f, 'host'), username: text(f, 'username'), token: String(f.get('token')) } }); list.reload(); }}>
            <Field label="Token name">{(id) => <input id={id} name="name" required maxLength={200} />}</Field>
            <Field label="Host (and port)">{(id) => <input id={id} name="host" required maxLength={255} />}</Field>
            <Field label="Username">{(id) => <input id={id} name="username" maxLength={255} />}</Field>
            <Field label="Token">{(id) => <input id={id} name="token" type="password" required autocomplete="off" />}</Field>
          </ActionForm>
        </fieldset>
      </div>
    </>
  );
}

/** GET /settings for everyone; PATCH /settings sends the changed values only (each by the role the specification names). */
function Settings({ me }: { me: Me }) {
  const settings = useGet<Record<string, unknown>>('/settings');
  const [saved, setSaved] = useState(false);
  const s = settings.data;
  if (!s) return <Loading loaded={settings} />;
  const editable = may.changeSettings(me);
  return (
    <ActionForm label="Save settings" busyLabel="Saving…" onSubmit={async (f) => {
      setSaved(false);
      const changed: Record<string, unknown> = {};
      for (const [k, old] of Object.entries(s)) {
        const next = typeof old === 'boolean' ? f.get(k) === 'on' : typeof old === 'number' ? Number(f.get(k)) : (text(f, k) ?? null);
        if (next !== old) changed[k] = next;
      }
      if (Object.keys(changed).length) await call('PATCH', '/settings', { body: changed });
      setSaved(true); settings.reload();
    }}>
      <fieldset disabled={!editable}><legend>Installation settings{editable ? '' : ' (read only for your role)'}</legend>
        <div class="stack">
          {Object.entries(s).map(([k, v]) => typeof v === 'boolean'
            ? <label class="check"><input type="checkbox" name={k} defaultChecked={v} /> {k.replace(/_/g, ' ')}</label>
            : <Field label={k.replace(/_/g, ' ')}>{(id) => typeof v === 'number' ? <input id={id} name={k} type="number" defaultValue={String(v)} /> : <input id={id} name={k} type="text" defaultValue={v === null ? '' : String(v)} maxLength={1000} />}</Field>)}
        </div>
      </fieldset>
      {saved && <p class="notice" role="status">Saved.</p>}
    </ActionForm>
  );
}

function Feeds() {
  const feeds = useGet<any[]>('/feeds');
  const [outcome, setOutcome] = useState<string | null>(null);
  return (
    <>
      <Loading loaded={feeds} />
      <Table caption="Enrichment feeds" rowKey={(f) => f.feed} rows={feeds.data} columns={[
        { label: 'Feed', cell: (f) => f.feed.toUpperCase() },
        { label: 'Source', class: 'wrap', cell: (f) => f.source },
        { label: 'Version', cell: (f) => f.version ?? '—' },
        { label: 'Entries', class: 'num', cell: (f) => f.count ?? '—' },
        { label: 'Synchronised', cell: (f) => <When at={f.synchronisedAt} /> },
        { label: 'Last refusal', class: 'wrap', cell: (f) => (f.lastRefusal ? JSON.stringify(f.lastRefusal) : '—') },
      ]} />
      <ActionForm label="Synchronise now" busyLabel="Synchronising…" class="inline" onSubmit={async () => {
        const r = await call('POST', '/feeds/sync');
        setOutcome(JSON.stringify(r.body.outcomes ?? r.body));
        feeds.reload();
      }} />
      {outcome && <p role="status" class="muted">{outcome}</p>}
    </>
  );
}
