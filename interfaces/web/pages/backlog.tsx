import { useState } from 'preact/hooks';
import type { PageProps } from '.';
import { ApiError, call } from '../api';
import { may } from '../roles';
import { href } from '../router';
import { ActionForm, Day, Field, Loading, Page, Pager, Severity, Table, targetHref, useGet, Select } from '../ui';
import { decisionBody, DecisionFields, STATUSES } from './triage-form';

export interface Issue {
  id: number; targetKind: string; targetId: number; repositoryId: number | null; containerId: number | null; type: string; status: string;
  ruleId: string | null; path: string | null; line: number | null; severity: string | null; title: string; identifier: string | null;
  package: string | null; packageVersion: string | null; fixable: boolean | null; kev: boolean | null; epss: number | null;
  triageStatus: string; triageRequestedStatus: string | null; justification: string | null; reviewDate: string | null;
  firstSeenAt: string; lastSeenAt: string; resolvedAt: string | null; remediationDeadline: string | null; owaspCategories?: string[]; revision: number;
  provenance: Record<string, unknown>; history?: HistoryEntry[];
}
export interface HistoryEntry { revision: number; type: string; at: string; actor: string | number | null; status: string | null; requestedStatus: string | null; justification: string | null; comment: string | null; reviewDate: string | null }

const FILTERS = ['repository_id', 'container_id', 'status', 'triage_status', 'severity', 'type', 'kev', 'epss_min', 'owasp_category', 'unsettled', 'limit', 'sort'] as const;
const TYPES = ['vulnerability', 'secret', 'iac', 'sast', 'license', 'imported', 'plugin'];
/** The API's orders (GET /issues sort): they hold across pages, the Link carrying the last issue's sort key. */
const SORTS: Array<[string, string]> = [['id', 'as created (id)'], ['severity', 'most severe first'], ['epss', 'highest EPSS first'], ['first_seen', 'first seen, oldest first'], ['deadline', 'remediation deadline, earliest first']];
export const shortTitle = (t: string) => (t.length > 140 ? `${t.slice(0, 140)}…` : t).split('\n')[0];

/** GET /issues with the filters of spec 1 §4.5 (and KEV, EPSS, type) in the API's order, paged through Link; bulk triage of the selected issues. */
export function Backlog({ query, me }: PageProps) {
  const filters: Record<string, string | undefined> = {};
  for (const f of FILTERS) filters[f] = query.get(f) ?? undefined;
  const after = query.get('after') ?? undefined;
  const afterKey = query.get('after_key') ?? undefined;
  const issues = useGet<Issue[]>('/issues', { ...filters, limit: filters.limit ?? 50, after, after_key: afterKey });
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [outcome, setOutcome] = useState<{ decided: number; refused: number; results: { id: number; outcome: number; detail?: string }[] } | null>(null);
  const rows = issues.data;
  const toggle = (id: number) => { const next = new Set(selected); if (next.has(id)) next.delete(id); else next.add(id); setSelected(next); };
  const applyFilters = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const q: Record<string, string | undefined> = {};
    for (const k of FILTERS) { const v = f.get(k); q[k] = k === 'unsettled' ? (v === 'on' ? 'true' : undefined) : (v ? String(v) : undefined); }
    if (q.sort === 'id') q.sort = undefined;
    location.hash = href('/issues', q);
    setSelected(new Set());
  };
  const target = filters.repository_id ? `repository ${filters.repository_id}` : filters.container_id ? `container image ${filters.container_id}` : null;
  return (
    <Page title={target ? `Backlog of ${target}` : 'Backlog'}>
      {target && <p><a href={targetHref(filters.repository_id ? 'repository' : 'container', Number(filters.repository_id ?? filters.container_id))}>Back to the {target}</a></p>}
      <form class="filters" onSubmit={applyFilters} aria-label="Filters">
        {filters.repository_id && <input type="hidden" name="repository_id" value={filters.repository_id} />}
        {filters.container_id && <input type="hidden" name="container_id" value={filters.container_id} />}
        <Field label="Status">{(id) => <Select id={id} name="status" defaultValue={filters.status ?? ''}><option value="">any</option><option value="open">open</option><option value="resolved">resolved</option></Select>}</Field>
        <Field label="Triage status">{(id) => <Select id={id} name="triage_status" defaultValue={filters.triage_status ?? ''}><option value="">any</option>{[...STATUSES, 'pending_approval'].map((s) => <option value={s}>{s.replace(/_/g, ' ')}</option>)}</Select>}</Field>
        <Field label="Severity">{(id) => <Select id={id} name="severity" defaultValue={filters.severity ?? ''}><option value="">any</option>{['critical', 'high', 'medium', 'low'].map((s) => <option>{s}</option>)}</Select>}</Field>
        <Field label="Type">{(id) => <Select id={id} name="type" defaultValue={filters.type ?? ''}><option value="">any</option>{TYPES.map((t) => <option>{t}</option>)}</Select>}</Field>
        <Field label="KEV">{(id) => <Select id={id} name="kev" defaultValue={filters.kev ?? ''}><option value="">any</option><option value="true">listed in KEV</option><option value="false">not listed</option></Select>}</Field>
        <Field label="EPSS at least" hint="0 to 1">{(id, d) => <input id={id} name="epss_min" type="number" min={0} max={1} step="any" size={6} defaultValue={filters.epss_min ?? ''} aria-describedby={d} />}</Field>
        <Field label="OWASP category" hint="e.g. A03:2021 or A1:2017">{(id, d) => <input id={id} name="owasp_category" maxLength={8} size={10} pattern="[Aa](0?[1-9]|10):20[0-9]{2}" title="A, the rank 1 to 10, a colon, the edition's year: A03:2021" defaultValue={filters.owasp_category ?? ''} aria-describedby={d} />}</Field>
        <label class="check"><input type="checkbox" name="unsettled" defaultChecked={filters.unsettled === 'true'} /> Unsettled only</label>
        <Field label="Per page">{(id) => <Select id={id} name="limit" defaultValue={filters.limit ?? '50'}>{['25', '50', '100', '250'].map((n) => <option>{n}</option>)}</Select>}</Field>
        <Field label="Order">{(id) => <Select id={id} name="sort" defaultValue={filters.sort ?? 'id'}>{SORTS.map(([v, label]) => <option value={v}>{label}</option>)}</Select>}</Field>
        <button type="submit">Apply</button>
      </form>
      <Loading loaded={issues} />
      <Table caption="Issues" rowKey={(i) => i.id} rows={rows} empty="No issue matches." columns={[
        ...(may.triage(me) ? [{ label: 'Select', cell: (i: Issue) => <input type="checkbox" aria-label={`Select issue ${i.id}`} checked={selected.has(i.id)} onChange={() => toggle(i.id)} /> }] : []),
        { label: 'Issue', class: 'num', cell: (i) => <a href={href(`/issues/${i.id}`)}>#{i.id}</a> },
        { label: 'Severity', cell: (i) => <Severity value={i.severity} /> },
        { label: 'Title', class: 'wrap', cell: (i) => <a href={href(`/issues/${i.id}`)}>{shortTitle(i.title)}</a> },
        { label: 'Where', class: 'wrap', cell: (i) => i.path ? `${i.path}${i.line ? `:${i.line}` : ''}` : i.package ? `${i.package} ${i.packageVersion ?? ''}` : '—' },
        { label: 'Type', cell: (i) => i.type },
        { label: 'Status', cell: (i) => i.status },
        { label: 'Triage', cell: (i) => i.triageRequestedStatus ? `${i.triageStatus} → ${i.triageRequestedStatus}` : i.triageStatus },
        { label: 'KEV', cell: (i) => (i.kev ? 'yes' : '—') },
        { label: 'EPSS', class: 'num', cell: (i) => (i.epss ?? '—') },
        { label: 'Deadline', cell: (i) => <Day at={i.remediationDeadline} /> },
      ]} />
      <Pager path="/issues" query={{ ...filters, after, after_key: afterKey }} next={issues.answer?.next ?? null} cursor={['after', 'after_key']} />
      {may.triage(me) && rows && rows.length > 0 && (
        <>
          <h2>Decide for the selected issues ({selected.size})</h2>
          <ActionForm label={`Decide for ${selected.size} issue${selected.size === 1 ? '' : 's'}`} busyLabel="Deciding…" onSubmit={async (f) => {
            if (selected.size === 0) throw new ApiError({ status: 0, title: 'Nothing selected', detail: 'Select one or more issues first.' });
            const chosen = rows.filter((i) => selected.has(i.id)).map((i) => ({ id: i.id, ifMatch: `"${i.revision}"` }));
            const r = await call('POST', '/issues/triage', { body: { issues: chosen, ...decisionBody(f) } });
            setOutcome(r.body); setSelected(new Set()); issues.reload();
          }}>
            <DecisionFields />
          </ActionForm>
          {outcome && (
            <div role="status" class={outcome.refused ? 'problem' : 'notice'}>
              {outcome.decided} decided, {outcome.refused} refused.
              {outcome.refused > 0 && <ul>{outcome.results.filter((r) => r.outcome >= 300).map((r) => <li><a href={href(`/issues/${r.id}`)}>#{r.id}</a>: {r.outcome} {r.detail}</li>)}</ul>}
            </div>
          )}
        </>
      )}
    </Page>
  );
}

/** GET /exceptions (granted and requested) with reviews: confirm, extend (will_not_fix), revoke. */
export function Exceptions({ query, me }: PageProps) {
  const state = query.get('state') ?? undefined;
  const after = query.get('after') ?? undefined;
  const list = useGet<any[]>('/exceptions', { state, limit: 50, after });
  return (
    <Page title="Exceptions">
      <ul class="tabs">
        {[[undefined, 'All'], ['granted', 'Granted'], ['requested', 'Requested']].map(([k, label]) => <li><a href={href('/exceptions', { state: k })} aria-current={state === k ? 'page' : undefined}>{label}</a></li>)}
      </ul>
      <Loading loaded={list} />
      <Table caption="Exceptions on open issues" rowKey={(e) => e.issueId} rows={list.data} empty="No exception." columns={[
        { label: 'Issue', cell: (e) => <a href={href(`/issues/${e.issueId}`)}>#{e.issueId}</a> },
        { label: 'Severity', cell: (e) => <Severity value={e.severity} /> },
        { label: 'Title', class: 'wrap', cell: (e) => shortTitle(e.title ?? '') },
        { label: 'State', cell: (e) => (e.granted ? `granted: ${String(e.granted).replace(/_/g, ' ')}` : `requested: ${String(e.requested_status ?? '').replace(/_/g, ' ')}`) },
        { label: 'Justification', cell: (e) => e.justification ?? '—' },
        { label: 'Comment', class: 'wrap', cell: (e) => e.comment ?? '—' },
        { label: 'Review date', cell: (e) => <Day at={e.reviewDate} /> },
        { label: 'Requested by', cell: (e) => e.requestedBy ?? '—' },
        ...(may.triage(me) ? [{ label: 'Review', cell: (e: any) => e.granted ? <Review entry={e} onDone={list.reload} /> : <a href={href(`/issues/${e.issueId}`)}>approve or refuse</a> }] : []),
      ]} />
      <Pager path="/exceptions" query={{ state, after }} next={list.answer?.next ?? null} />
    </Page>
  );
}

function Review({ entry, onDone }: { entry: any; onDone: () => void }) {
  const id = entry.issueId;
  const [action, setAction] = useState('confirm');
  return (
    <ActionForm label="Review" busyLabel="Reviewing…" class="inline" onSubmit={async (f) => {
      const body: Record<string, unknown> = { action };
      if (action === 'extend') body.expires_in_days = Number(f.get('days'));
      const comment = String(f.get('comment') ?? '').trim();
      if (comment) body.comment = comment;
      await call('POST', `/exceptions/${id}/reviews`, { body, ifMatch: entry.etag ?? null });
      onDone();
    }}>
      <Field label={`Action on #${id}`}>{(fid) => <select id={fid} value={action} onChange={(e) => setAction((e.target as HTMLSelectElement).value)}><option value="confirm">confirm</option>{entry.granted === 'will_not_fix' ? <option value="extend">extend</option> : null}<option value="revoke">revoke</option></select>}</Field>
      {action === 'extend' && <Field label="Days from now">{(fid) => <input id={fid} name="days" type="number" min={1} max={3650} required />}</Field>}
      <Field label="Comment">{(fid) => <input id={fid} name="comment" maxLength={4000} />}</Field>
    </ActionForm>
  );
}

