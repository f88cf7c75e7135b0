import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '.';
import { call } from '../api';
import { may } from '../roles';
import { go, href } from '../router';
import type { Me } from '../session';
import { ActionForm, Field, Grade, int, Loading, Page, Pager, ProblemNote, Table, text, useGet, When, Select } from '../ui';
import type { Ranked } from './estate';
import { Exports, TARGET_FORMATS } from './exports';
import { ImportUpload } from './import-upload';

export interface Target {
  id: number; name: string; projectId: number | null; scanManualOnly: boolean; scanIntervalMinutes: number | null; scanCron: string | null;
  schedule: { mode: string; intervalMinutes: number | null }; lastScheduledScanAt: string | null; createdAt: string; updatedAt: string;
  url?: string; branch?: string; subPath?: string; identity?: string; image?: string; sshKeyId?: number | null; httpsTokenId?: number | null; detectedLanguages?: string[] | null;
}
export interface Scan { id: number; targetKind: string; targetId: number; status: string; error: string | null; errorKind: string | null; attempts: number; trigger: string; requestedAt: string; startedAt: string | null; finishedAt: string | null; lastError: string | null; duration: string | null }

export type Kind = 'repositories' | 'containers';
const singular = (k: Kind) => (k === 'repositories' ? 'repository' : 'container');

export function scheduleText(t: Target): string {
  if (t.scanManualOnly || t.schedule.mode === 'manual') return 'manual only';
  if (t.scanCron) return `cron ${t.scanCron}`;
  const m = t.schedule.intervalMinutes;
  if (!m) return t.schedule.mode;
  const every = m % 1440 === 0 ? `${m / 1440} day${m === 1440 ? '' : 's'}` : m % 60 === 0 ? `${m / 60} h` : `${m} min`;
  return `every ${every}${t.schedule.mode === 'default' ? ' (default)' : ''}`;
}

/** Repositories and container images with grade (posture scoreboard), last scan and schedule; register. */
export function Targets({ query, me }: PageProps) {
  const kind: Kind = query.get('kind') === 'containers' ? 'containers' : 'repositories';
  const after = query.get('after') ?? undefined;
  const project = query.get('project') ?? undefined;
  const list = useGet<Target[]>(`/${kind}`, { limit: 50, after });
  const board = useGet<{ targetScoreboard: Ranked[] }>('/dashboard/posture-analytics');
  const scans = useGet<Scan[]>('/scans', { limit: 500 });
  const projects = useGet<{ id: number; name: string }[]>('/projects', { limit: 1000 });
  const grade = (t: Target) => board.data?.targetScoreboard.find((r) => r.kind === singular(kind) && r.id === t.id)?.grade;
  const lastScan = (t: Target) => scans.data?.find((s) => s.targetKind === singular(kind) && s.targetId === t.id);
  const rows = list.data?.filter((t) => !project || String(t.projectId) === project) ?? null;
  return (
    <Page title="Targets">
      <ul class="tabs">
        <li><a href={href('/targets')} aria-current={kind === 'repositories' ? 'page' : undefined}>Repositories</a></li>
        <li><a href={href('/targets', { kind: 'containers' })} aria-current={kind === 'containers' ? 'page' : undefined}>Container images</a></li>
      </ul>
      {project && <p>In project {projects.data?.find((p) => String(p.id) === project)?.name ?? project} · <a href={href('/targets', { kind })}>all projects</a></p>}
      <Loading loaded={list} />
      <Table caption={kind === 'repositories' ? 'Repositories' : 'Container images'} rowKey={(t) => t.id} rows={rows} empty="None registered yet." columns={[
        { label: 'Name', cell: (t) => <a href={href(`/${kind}/${t.id}`)}>{t.name}</a> },
        { label: kind === 'repositories' ? 'URL and branch' : 'Image', class: 'wrap', cell: (t) => (kind === 'repositories' ? `${t.url} (${t.branch})` : t.image) },
        { label: 'Grade', cell: (t) => <Grade grade={grade(t)} /> },
        { label: 'Last scan', cell: (t) => { const s = lastScan(t); return s ? <a href={href(`/${kind}/${t.id}`, { tab: 'scans' })}>{s.status} · <When at={s.finishedAt ?? s.requestedAt} /></a> : <span class="muted">never</span>; } },
        { label: 'Schedule', cell: scheduleText },
        { label: 'Project', cell: (t) => projects.data?.find((p) => p.id === t.projectId)?.name ?? '—' },
      ]} />
      <Pager path="/targets" query={{ kind: kind === 'containers' ? kind : undefined, after }} next={list.answer?.next ?? null} />
      {may.registerTargets(me) && <Register kind={kind} projects={projects.data ?? []} me={me} />}
    </Page>
  );
}

function ScheduleFields({ t }: { t?: Target }) {
  return (
    <fieldset><legend>Schedule</legend>
      <div class="filters">
        <label class="check"><input type="checkbox" name="manual" defaultChecked={t?.scanManualOnly} /> Manual scans only</label>
        <Field label="Every (minutes)" hint="Empty: the installation's default.">{(id, d) => <input id={id} name="interval" type="number" min={1} defaultValue={t?.scanIntervalMinutes ?? undefined} aria-describedby={d} />}</Field>
        <Field label="Or a cron expression">{(id) => <input id={id} name="cron" maxLength={100} defaultValue={t?.scanCron ?? ''} />}</Field>
      </div>
    </fieldset>
  );
}

function scheduleBody(f: FormData) {
  return { scanManualOnly: f.get('manual') === 'on', scanIntervalMinutes: int(f, 'interval') ?? null, scanCron: text(f, 'cron') ?? null };
}

function Register({ kind, projects, me }: { kind: Kind; projects: { id: number; name: string }[]; me: Me }) {
  return (
    <>
      <h2>Register a {kind === 'repositories' ? 'repository' : 'container image'}</h2>
      {!may.administer(me) && <p class="muted">Place it in a project granted to one of your teams, so that you keep seeing it.</p>}
      <ActionForm label="Register" busyLabel="Registering…" onSubmit={async (f) => {
        const project = text(f, 'project');
        const common = { name: text(f, 'name'), projectId: project ? Number(project) : null, ...scheduleBody(f) };
        const body = kind === 'repositories' ? { url: text(f, 'url'), branch: text(f, 'branch'), subPath: text(f, 'subPath'), ...common } : { image: text(f, 'image'), ...common };
        const made = await call<Target>('POST', `/${kind}`, { body });
        go(`/${kind}/${made.body.id}`);
      }}>
        {kind === 'repositories' ? (
          <>
            <Field label="Repository URL" hint="https://, ssh:// or git@host:path">{(id, d) => <input id={id} name="url" required maxLength={2048} aria-describedby={d} />}</Field>
            <Field label="Branch" hint="Empty: main.">{(id, d) => <input id={id} name="branch" maxLength={255} aria-describedby={d} />}</Field>
            <Field label="Sub-path">{(id) => <input id={id} name="subPath" maxLength={1024} />}</Field>
          </>
        ) : <Field label="Image reference" hint="registry/name:tag or @sha256:…">{(id, d) => <input id={id} name="image" required maxLength={1024} aria-describedby={d} />}</Field>}
        <Field label="Name" hint="Empty: taken from the URL or image.">{(id, d) => <input id={id} name="name" maxLength={255} aria-describedby={d} />}</Field>
        <Field label="Project">{(id) => <select id={id} name="project"><option value="">none</option>{projects.map((p) => <option value={p.id}>{p.name}</option>)}</select>}</Field>
        <ScheduleFields />
      </ActionForm>
    </>
  );
}

/** One target: facts and scorecard, edit, scan now, and its imports, scans and gate verdicts. */
export function TargetPage({ params, query, me }: PageProps & { kind: Kind }) {
  const kind: Kind = params.kind as Kind;
  const id = Number(params.id);
  const t = useGet<Target>(`/${kind}/${id}`);
  const card = useGet<Record<string, any>>(`/scorecards/${kind}/${id}`);
  const projects = useGet<{ id: number; name: string }[]>('/projects', { limit: 1000 });
  const tab = query.get('tab') ?? 'overview';
  const base = `/${kind}/${id}`;
  const target = t.data;
  return (
    <Page title={target ? target.name : 'Target'}>
      <Loading loaded={t} />
      {target && (
        <>
          <ul class="tabs">
            {[['overview', 'Overview'], ['imports', 'Imports'], ['scans', 'Scans'], ['verdicts', 'Gate verdicts'], ['exports', 'Exports']].filter(([k]) => k !== 'imports' || kind === 'repositories').map(([k, label]) => (
              <li><a href={href(base, { tab: k === 'overview' ? undefined : k })} aria-current={tab === k ? 'page' : undefined}>{label}</a></li>
            ))}
            <li><a href={href('/issues', { [kind === 'repositories' ? 'repository_id' : 'container_id']: id, status: 'open' })}>Backlog</a></li>
          </ul>
          {tab === 'overview' && <Overview kind={kind} target={target} card={card.data} projects={projects.data ?? []} me={me} onChange={() => { t.reload(); card.reload(); }} />}
          {tab === 'imports' && <ImportsOf id={id} />}
          {tab === 'exports' && <Exports base={base} formats={TARGET_FORMATS} />}
          {tab === 'scans' && <ScanList query={{ [kind === 'repositories' ? 'repo_id' : 'container_id']: String(id) }} path={base} extra={{ tab: 'scans' }} before={query.get('before') ?? undefined} />}
          {tab === 'verdicts' && <VerdictList query={{ target_kind: singular(kind), target_id: String(id) }} path={base} extra={{ tab: 'verdicts' }} before={query.get('before') ?? undefined} me={me} target={{ kind: singular(kind), id }} />}
        </>
      )}
    </Page>
  );
}

function Overview({ kind, target, card, projects, me, onChange }: { kind: Kind; target: Target; card: Record<string, any> | null; projects: { id: number; name: string }[]; me: Me; onChange: () => void }) {
  const [scanned, setScanned] = useState<Scan | null>(null);
  const [scanError, setScanError] = useState<any>(null);
  const credentials = useGet<{ id: number; name: string; kind: string }[]>(may.administer(me) && kind === 'repositories' ? '/credentials' : null, { limit: 1000 });
  return (
    <>
      <dl class="facts">
        {kind === 'repositories' ? <><dt>URL</dt><dd>{target.url}</dd><dt>Branch</dt><dd>{target.branch}</dd>{target.subPath && <><dt>Sub-path</dt><dd>{target.subPath}</dd></>}</> : <><dt>Image</dt><dd>{target.image}</dd></>}
        <dt>Project</dt><dd>{projects.find((p) => p.id === target.projectId)?.name ?? '—'}</dd>
        <dt>Schedule</dt><dd>{scheduleText(target)}</dd>
        <dt>Last scheduled scan</dt><dd><When at={target.lastScheduledScanAt} /></dd>
        {kind === 'repositories' && <><dt>Languages</dt><dd>{target.detectedLanguages?.join(', ') || '—'}</dd></>}
        <dt>Registered</dt><dd><When at={target.createdAt} /></dd>
      </dl>
      <h2>Scorecard</h2>
      {card && (
        <dl class="cards">
          <div class="card"><dt>Grade</dt><dd><Grade grade={card.grade} /></dd></div>
          <div class="card"><dt>Score</dt><dd>{card.score ?? '—'}</dd></div>
          <div class="card"><dt>Risk points</dt><dd>{card.riskPoints ?? '—'}</dd></div>
          <div class="card"><dt>Open critical</dt><dd>{card.openCriticalCount}</dd></div>
          <div class="card"><dt>Open high</dt><dd>{card.openHighCount}</dd></div>
          <div class="card"><dt>Open medium</dt><dd>{card.openMediumCount}</dd></div>
          <div class="card"><dt>Open low</dt><dd>{card.openLowCount}</dd></div>
          <div class="card"><dt>Overdue</dt><dd>{card.overdueCount}</dd></div>
        </dl>
      )}
      {card && !card.scanned && <p class="muted">Not scanned yet{card.lastScanFailed ? '; the last scan failed' : ''}.</p>}
      {may.scanNow(me) && (
        <>
          <h2>Scan now</h2>
          <button type="button" onClick={async () => {
            setScanError(null);
            try { setScanned((await call<Scan>('POST', `/${kind}/${target.id}/scan`, { body: {} })).body); } catch (e) { setScanError(e); }
          }}>Scan now</button>
          <ProblemNote error={scanError} />
          {scanned && <p class="notice" role="status">Scan {scanned.id} requested ({scanned.status}). <a href={href(`/${kind}/${target.id}`, { tab: 'scans' })}>Follow it</a>.</p>}
        </>
      )}
      {may.registerTargets(me) && (
        <>
          <h2>Edit</h2>
          <ActionForm label="Save changes" busyLabel="Saving…" onSubmit={async (f) => {
            const project = text(f, 'project');
            const body: Record<string, unknown> = { name: text(f, 'name') ?? null, projectId: project ? Number(project) : null, ...scheduleBody(f) };
            if (kind === 'repositories') {
              Object.assign(body, { url: text(f, 'url'), branch: text(f, 'branch') ?? 'main', subPath: text(f, 'subPath') ?? '' });
              if (credentials.data) {
                const c = text(f, 'credential') ?? '';
                const [ck, cid] = c.split(':');
                body.sshKeyId = ck === 'ssh' ? Number(cid) : null;
                body.httpsTokenId = ck === 'https' ? Number(cid) : null;
              }
            } else body.image = text(f, 'image');
            await call('PATCH', `/${kind}/${target.id}`, { body });
            onChange();
          }}>
            {kind === 'repositories' ? (
              <>
                <Field label="Repository URL">{(id) => <input id={id} name="url" required maxLength={2048} defaultValue={target.url} />}</Field>
                <Field label="Branch">{(id) => <input id={id} name="branch" maxLength={255} defaultValue={target.branch} />}</Field>
                <Field label="Sub-path">{(id) => <input id={id} name="subPath" maxLength={1024} defaultValue={target.subPath} />}</Field>
              </>
            ) : <Field label="Image reference">{(id) => <input id={id} name="image" required maxLength={1024} defaultValue={target.image} />}</Field>}
            <Field label="Name">{(id) => <input id={id} name="name" maxLength={255} defaultValue={target.name} />}</Field>
            <Field label="Project">{(id) => <Select id={id} name="project" defaultValue={target.projectId ? String(target.projectId) : ''}><option value="">none</option>{projects.map((p) => <option value={p.id}>{p.name}</option>)}</Select>}</Field>
            {credentials.data && (
              <Field label="Clone credential" hint="Stored credentials (Administration › Credentials).">{(id, d) => (
                <Select id={id} name="credential" aria-describedby={d} defaultValue={target.sshKeyId ? `ssh:${target.sshKeyId}` : target.httpsTokenId ? `https:${target.httpsTokenId}` : ''}>
                  <option value="">none</option>
                  {credentials.data!.map((c) => <option value={`${c.kind === 'ssh_key' ? 'ssh' : 'https'}:${c.id}`}>{c.name} ({c.kind})</option>)}
                </Select>
              )}</Field>
            )}
            <ScheduleFields t={target} />
          </ActionForm>
        </>
      )}
    </>
  );
}

/**
 * GET /repositories/{id}/sarif-imports and the report imports: the latest 50 of each, newest first,
 * read again after an upload from the form above them.
 */
function ImportsOf({ id }: { id: number }) {
  const sarif = useGet<any[]>(`/repositories/${id}/sarif-imports`);
  const coverage = useGet<any[]>(`/repositories/${id}/coverage-imports`);
  const tests = useGet<any[]>(`/repositories/${id}/test-report-imports`);
  const sboms = useGet<any[]>(`/repositories/${id}/build-sbom-imports`);
  const reload = () => { sarif.reload(); coverage.reload(); tests.reload(); sboms.reload(); };
  const generic = (caption: string, l: typeof coverage) => (
    <>
      <Loading loaded={l} />
      <Table caption={caption} rowKey={(r) => r.id} rows={l.data} empty={`No ${caption.toLowerCase()} yet.`} columns={[
        { label: 'Import', class: 'num', cell: (r) => r.id },
        { label: 'Source', cell: (r) => r.source ?? '—' },
        { label: 'Format', cell: (r) => r.format ?? r.kind ?? '—' },
        { label: 'Summary', class: 'wrap', cell: (r) => Object.entries(r).filter(([k, v]) => typeof v === 'number' && !['id', 'accountId', 'apiKeyId', 'repositoryId'].includes(k)).map(([k, v]) => `${k} ${v}`).join(', ') },
        { label: 'At', cell: (r) => <When at={r.createdAt ?? r.importedAt} /> },
      ]} />
    </>
  );
  return (
    <>
      <ImportUpload repositoryId={id} onImported={reload} />
      <h2>Imports, newest first</h2>
      <Loading loaded={sarif} />
      <Table caption="SARIF imports" rowKey={(r) => r.id} rows={sarif.data} empty="No SARIF import yet." columns={[
        { label: 'Import', class: 'num', cell: (r) => r.id },
        { label: 'Source', cell: (r) => r.source },
        { label: 'Tools', cell: (r) => r.tools.join(', ') },
        { label: 'Results', class: 'num', cell: (r) => r.resultsCount },
        { label: 'Created', class: 'num', cell: (r) => r.createdCount },
        { label: 'Resolved', class: 'num', cell: (r) => r.resolvedCount },
        { label: 'Reopened', class: 'num', cell: (r) => r.reopenedCount },
        { label: 'At', cell: (r) => <When at={r.createdAt} /> },
      ]} />
      {generic('Coverage imports', coverage)}
      {generic('Test-report imports', tests)}
      {generic('Build SBOM imports', sboms)}
    </>
  );
}

/** GET /scans newest first, paged by `before` (Link rel="next"). */
export function ScanList({ query, path, extra = {}, before }: { query: Record<string, string>; path: string; extra?: Record<string, string>; before?: string }) {
  const scans = useGet<Scan[]>('/scans', { ...query, limit: 50, before });
  // Progress: while a scan waits or runs, the list is read again every few seconds.
  const running = scans.data?.some((s) => s.status === 'pending' || s.status === 'scanning') ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(scans.reload, 3000);
    return () => clearTimeout(timer);
  }, [running, scans.data]);
  return (
    <>
      <Loading loaded={scans} />
      {running && <p role="status" class="muted">A scan is waiting or running; this list follows it.</p>}
      <Table caption="Scans, newest first" rowKey={(s) => s.id} rows={scans.data} empty="No scan yet." columns={[
        { label: 'Scan', class: 'num', cell: (s) => s.id },
        { label: 'Target', cell: (s) => <a href={href(`/${s.targetKind === 'container' ? 'containers' : 'repositories'}/${s.targetId}`)}>{s.targetKind} {s.targetId}</a> },
        { label: 'Status', cell: (s) => <span class={s.status === 'failed' ? 'fail' : s.status === 'completed' ? 'pass' : ''}>{s.status}</span> },
        { label: 'Attempts', class: 'num', cell: (s) => s.attempts },
        { label: 'Trigger', cell: (s) => s.trigger },
        { label: 'Requested', cell: (s) => <When at={s.requestedAt} /> },
        { label: 'Finished', cell: (s) => <When at={s.finishedAt} /> },
        { label: 'Error', class: 'wrap', cell: (s) => s.error ?? s.lastError ?? '—' },
      ]} />
      <Pager path={path} query={{ ...extra, before }} cursor="before" next={scans.answer?.next ?? null} />
    </>
  );
}

export interface Verdict { id: number; targetKind: string; targetId: number; passed: boolean; violations: { rule: string; reason: string }[]; violationCount: number; violationsOmitted: number; policy: Record<string, unknown>; accountId: number | null; apiKeyId: number | null; at: string }

/** GET /gate/verdicts newest first, paged by `before`; an account that writes may ask the gate about a target from here. */
export function VerdictList({ query, path, extra = {}, before, me, target }: { query: Record<string, string>; path: string; extra?: Record<string, string>; before?: string; me: Me; target?: { kind: string; id: number } }) {
  const verdicts = useGet<Verdict[]>('/gate/verdicts', { ...query, limit: 50, before });
  return (
    <>
      {target && may.askGate(me) && (
        <ActionForm label="Ask the gate now" busyLabel="Asking…" class="inline" onSubmit={async (f) => {
          await call('POST', '/gate', { body: { [target.kind === 'container' ? 'containerId' : 'repositoryId']: target.id, policy: { severity: text(f, 'severity') ?? 'high', include_triaged: f.get('include_triaged') === 'on' } } });
          verdicts.reload();
        }}>
          <Field label="Fail from severity">{(id) => <Select id={id} name="severity" defaultValue="high">{['critical', 'high', 'medium', 'low'].map((s) => <option>{s}</option>)}</Select>}</Field>
          <label class="check"><input type="checkbox" name="include_triaged" /> Count triaged issues too</label>
        </ActionForm>
      )}
      <Loading loaded={verdicts} />
      <Table caption="Gate verdicts, newest first" rowKey={(x) => x.id} rows={verdicts.data} empty="No verdict yet." columns={[
        { label: 'Verdict', class: 'num', cell: (x) => x.id },
        { label: 'Target', cell: (x) => <a href={href(`/${x.targetKind === 'container' ? 'containers' : 'repositories'}/${x.targetId}`)}>{x.targetKind} {x.targetId}</a> },
        { label: 'Result', cell: (x) => <span class={x.passed ? 'pass' : 'fail'}>{x.passed ? 'passed' : 'failed'}</span> },
        { label: 'Violations', class: 'wrap', cell: (x) => x.violations.length === 0 ? '—' : <ul>{x.violations.slice(0, 5).map((w) => <li>{w.rule}: {w.reason}</li>)}{x.violationCount > 5 && <li>{x.violationCount - 5} more</li>}</ul> },
        { label: 'Policy', class: 'wrap', cell: (x) => Object.entries(x.policy).map(([k, val]) => `${k}=${val}`).join(', ') },
        { label: 'Asked by', cell: (x) => x.apiKeyId ? `key ${x.apiKeyId}` : x.accountId ? `account ${x.accountId}` : '—' },
        { label: 'At', cell: (x) => <When at={x.at} /> },
      ]} />
      <Pager path={path} query={{ ...extra, before }} cursor="before" next={verdicts.answer?.next ?? null} />
    </>
  );
}
