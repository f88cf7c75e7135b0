/**
 * Administration of what landed beside the interface (issues #13-#15): agents (GET /admin/agents,
 * the credentialed backlog, limits and keys), the SIEM export (GET/PUT /siem/config, POST /siem/test,
 * GET /siem/outbox) and the SCIM token (POST/DELETE /admin/scim-token, the token shown once).
 */
import { useState } from 'preact/hooks';
import { call } from '../api';
import { may } from '../roles';
import type { Me } from '../session';
import { ActionForm, Field, Loading, ProblemNote, Table, useGet, When, Select } from '../ui';

/** A secret the API answers once: shown until the person says they kept it. */
function ShownOnce({ what, value, onDone }: { what: string; value: string; onDone: () => void }) {
  return (
    <div class="secret" role="status">
      <p><strong>{what}: copy it now, it is never shown again.</strong></p>
      <p><code>{value}</code></p>
      <button type="button" class="secondary" onClick={onDone}>I have copied it</button>
    </div>
  );
}

export function Agents() {
  const agents = useGet<any[]>('/admin/agents');
  const backlog = useGet<{ servedBy: string | null; scans: Array<{ id: number; targetKind: string; targetId: number; requestedAt: string }> }>('/admin/agents/credentialed-backlog');
  const [privateKey, setPrivateKey] = useState<{ agent: number; key: string } | null>(null);
  const [error, setError] = useState<any>(null);
  const act = async (fn: () => Promise<unknown>) => { setError(null); try { await fn(); agents.reload(); backlog.reload(); } catch (e) { setError(e); } };
  return (
    <>
      {privateKey && <ShownOnce what={`The private signing key of agent ${privateKey.agent} (give it to that agent)`} value={privateKey.key} onDone={() => setPrivateKey(null)} />}
      <Loading loaded={agents} />
      <ProblemNote error={error} />
      <Table caption="Agents" rowKey={(a) => a.id} rows={agents.data} empty="No agent has said hello yet (docs/agents.md)." columns={[
        { label: 'Id', class: 'num', cell: (a) => a.id },
        { label: 'Status', cell: (a) => a.status },
        { label: 'Last contact', cell: (a) => <When at={a.lastContactAt} /> },
        { label: 'Version', cell: (a) => a.version },
        { label: 'Mode', cell: (a) => a.mode },
        { label: 'Labels', class: 'wrap', cell: (a) => (a.labels.length ? a.labels.join(', ') : '—') },
        { label: 'Load', class: 'num', cell: (a) => `${a.load} of ${a.maxConcurrent}` },
        { label: 'Credentials', class: 'wrap', cell: (a) => a.credentialState },
        { label: 'Signing key', cell: (a) => (a.signingKey ? 'pinned' : 'none') },
        { label: 'Sealing key', cell: (a) => (a.sealingKey ? 'verified' : 'none') },
      ]} />
      {agents.data?.map((a) => (
        <fieldset>
          <legend>Agent {a.id}</legend>
          <div class="filters">
            <ActionForm label="Set limit" class="inline" onSubmit={(f) => act(() => call('PATCH', `/admin/agents/${a.id}`, { body: { max_concurrent: Number(f.get('limit')) } }))}>
              <Field label={`Concurrent scans of agent ${a.id}`} hint="1 to 16; applies to the next claim.">{(id, d) => <input id={id} name="limit" type="number" min={1} max={16} required defaultValue={String(a.maxConcurrent)} aria-describedby={d} />}</Field>
            </ActionForm>
            <ActionForm label="Pin signing key" class="inline" onSubmit={(f) => act(async () => {
              const r = await call<{ privateKey?: string }>('PUT', `/admin/agents/${a.id}/signing-key`, { body: { publicKey: String(f.get('publicKey')).trim() } });
              if (r.body.privateKey) setPrivateKey({ agent: a.id, key: r.body.privateKey });
            })}>
              <Field label={`Public key of agent ${a.id}`} hint="Base64 Ed25519, or the word generate (the private half is shown once).">{(id, d) => <input id={id} name="publicKey" required maxLength={64} size={24} aria-describedby={d} />}</Field>
            </ActionForm>
            {a.signingKey && <button type="button" class="danger" aria-label={`Remove signing key of agent ${a.id}`} onClick={() => act(() => call('DELETE', `/admin/agents/${a.id}/signing-key`))}>Remove signing key</button>}
            {a.sealingKey && <button type="button" class="danger" aria-label={`Withdraw sealing key of agent ${a.id}`} onClick={() => act(() => call('DELETE', `/admin/agents/${a.id}/sealing-key`))}>Withdraw sealing key</button>}
          </div>
        </fieldset>
      ))}
      <h2>Scans waiting for a credential</h2>
      <Loading loaded={backlog} />
      {backlog.data && (backlog.data.servedBy
        ? <p>Served by the {backlog.data.servedBy}: no credential-bearing scan is stuck.</p>
        : <Table caption="Credential-bearing scans no executor can serve, oldest first" rowKey={(s) => s.id} rows={backlog.data.scans} empty="None waits." columns={[
          { label: 'Scan', class: 'num', cell: (s) => s.id },
          { label: 'Target', cell: (s) => `${s.targetKind} ${s.targetId}` },
          { label: 'Requested', cell: (s) => <When at={s.requestedAt} /> },
        ]} />)}
    </>
  );
}

const PROTOCOLS = ['webhook', 'syslog_udp', 'syslog_tcp', 'syslog_tls'];
const MINIMUM = ['low', 'medium', 'high', 'critical'];
const OUTBOX_STATES = ['pending', 'retrying', 'delivered', 'failed', 'abandoned', 'below_minimum'];

export function Siem({ me }: { me: Me }) {
  const config = useGet<any>('/siem/config');
  const [saved, setSaved] = useState(false);
  const [tested, setTested] = useState<{ arrived: boolean; error: string | null } | null>(null);
  const c = config.data;
  return (
    <>
      <Loading loaded={config} />
      {c && (
        <>
          <p>{c.configured === false ? 'Not configured: no security event leaves the installation.' : `${c.enabled ? 'On' : 'Off'}: ${c.protocol} to ${c.endpoint}, from severity ${c.minimumSeverity}${c.authorizationSet ? ', with an Authorization header' : ''}. Changed `}{c.updatedAt && <When at={c.updatedAt} />}</p>
          <ActionForm key={c.updatedAt ?? 'new'} label="Save SIEM export" busyLabel="Saving…" onSubmit={async (f) => {
            setSaved(false);
            const authorization = String(f.get('authorization') ?? '');
            const ca = String(f.get('tlsCaPem') ?? '');
            await call('PUT', '/siem/config', { body: {
              enabled: f.get('enabled') === 'on', protocol: String(f.get('protocol')), endpoint: String(f.get('endpoint')).trim(), minimumSeverity: String(f.get('minimumSeverity')),
              ...(authorization ? { authorization } : {}), ...(ca.trim() ? { tlsCaPem: ca } : {}),
            } });
            setSaved(true); config.reload();
          }}>
            <label class="check"><input type="checkbox" name="enabled" defaultChecked={c.enabled} /> Send security events</label>
            <Field label="Protocol">{(id) => <Select id={id} name="protocol" defaultValue={c.protocol ?? 'webhook'}>{PROTOCOLS.map((p) => <option>{p}</option>)}</Select>}</Field>
            <Field label="Endpoint" hint="https://… for a webhook, host:port for syslog.">{(id, d) => <input id={id} name="endpoint" required maxLength={2048} size={40} defaultValue={c.endpoint ?? ''} aria-describedby={d} />}</Field>
            <Field label="Minimum severity">{(id) => <Select id={id} name="minimumSeverity" defaultValue={c.minimumSeverity ?? 'high'}>{MINIMUM.map((m) => <option>{m}</option>)}</Select>}</Field>
            <Field label="Authorization header" hint={c.authorizationSet ? 'One is stored (never shown); empty keeps it.' : 'Webhook only; stored sealed.'}>{(id, d) => <input id={id} name="authorization" type="password" autocomplete="off" maxLength={4096} aria-describedby={d} />}</Field>
            <Field label="CA bundle (PEM)" hint="syslog_tls or webhook with a private CA; empty keeps the stored one.">{(id, d) => <textarea id={id} name="tlsCaPem" rows={3} maxLength={16384} aria-describedby={d} />}</Field>
          </ActionForm>
          {saved && <p class="notice" role="status">Saved.</p>}
          {c.configured !== false && (
            <ActionForm label="Send a test event" busyLabel="Sending…" class="inline" onSubmit={async () => { setTested(null); setTested((await call('POST', '/siem/test')).body); }} />
          )}
          {tested && <p class={tested.arrived ? 'notice' : 'problem'} role="status">{tested.arrived ? 'The test event (VGL-SEC-999) arrived.' : `The test event did not arrive: ${tested.error}`}</p>}
        </>
      )}
      {may.administer(me) && <Outbox />}
    </>
  );
}

function Outbox() {
  const [state, setState] = useState('');
  const [before, setBefore] = useState<string | undefined>(undefined);
  const outbox = useGet<any[]>('/siem/outbox', { status: state || undefined, limit: 50, before });
  return (
    <section aria-labelledby="outbox">
      <h2 id="outbox">Outbox</h2>
      <Field label="Delivery state">{(id) => <select id={id} value={state} onChange={(e) => { setBefore(undefined); setState((e.target as HTMLSelectElement).value); }}><option value="">any</option>{OUTBOX_STATES.map((s) => <option>{s}</option>)}</select>}</Field>
      <Loading loaded={outbox} />
      <Table caption="Security events queued for the SIEM, newest first" rowKey={(r) => r.externalId} rows={outbox.data} empty="Nothing queued." columns={[
        { label: 'At', cell: (r) => <When at={r.at} /> },
        { label: 'Signature', cell: (r) => r.signature },
        { label: 'Severity', class: 'num', cell: (r) => r.severity },
        { label: 'What', class: 'wrap', cell: (r) => r.act },
        { label: 'State', cell: (r) => r.status },
        { label: 'Attempts', class: 'num', cell: (r) => r.attempts },
        { label: 'Last error', class: 'wrap', cell: (r) => r.lastError ?? '—' },
      ]} />
      {(before || outbox.answer?.next) && (
        <nav class="pager" aria-label="Outbox pages">
          {before && <button type="button" class="secondary" onClick={() => setBefore(undefined)}>Newest</button>}
          {outbox.answer?.next && <button type="button" class="secondary" onClick={() => setBefore(outbox.answer!.next!.before)}>Older</button>}
        </nav>
      )}
    </section>
  );
}

/** The SCIM token: issuing one replaces any earlier; the API never answers it again. */
export function ScimToken() {
  const [token, setToken] = useState<string | null>(null);
  const [revoked, setRevoked] = useState(false);
  return (
    <>
      <p>The identity provider provisions accounts through <code>/scim/v2</code> with this token (docs/identity-providers.md). Vigil keeps only its digest: it cannot show it again.</p>
      {token && <ShownOnce what="The SCIM token" value={token} onDone={() => setToken(null)} />}
      <div class="filters">
        <ActionForm label="Issue a SCIM token" busyLabel="Issuing…" class="inline" onSubmit={async () => { setRevoked(false); setToken((await call<{ token: string }>('POST', '/admin/scim-token')).body.token); }} />
        <ActionForm label="Revoke the SCIM token" busyLabel="Revoking…" class="inline" onSubmit={async () => { await call('DELETE', '/admin/scim-token'); setToken(null); setRevoked(true); }} />
      </div>
      <p class="muted">Issuing replaces the token in use: the provider needs the new one.</p>
      {revoked && <p class="notice" role="status">Revoked: SCIM calls are refused until a token is issued.</p>}
    </>
  );
}

