import type { PageProps } from '.';
import { may } from '../roles';
import { href } from '../router';
import { call } from '../api';
import { ActionForm, Field, Grade, Loading, Page, Pager, Table, targetHref, text, useGet } from '../ui';
import { TrendChart } from './trend-chart';
import { Exports, PORTFOLIO_FORMATS } from './exports';
import { useState } from 'preact/hooks';

interface Global {
  grades: { grade: string; count: number }[]; weakestTarget: { kind: string; id: number; name: string; grade?: string; score?: number } | null;
  riskPoints: number; totalTargets: number; observedTargets: number; openCriticalCount: number; openHighCount: number; openKevCount: number; overdueCount: number;
}
export interface Ranked { rank: number; kind: string; id: number; name: string; score: number | null; grade: string; riskPoints: number | null; openCriticalCount: number; openHighCount: number; openKevCount: number }

/** The estate: GET /scorecards/global, /dashboard/trends, /dashboard/posture-analytics, /projects and /solutions with their compliance. */
export function Estate({ me, query }: PageProps) {
  const global = useGet<Global>('/scorecards/global');
  const trends = useGet<{ points: TrendPoint[]; score_formula_changed_on: string | null }>('/dashboard/trends', { days: 30 });
  const board = useGet<{ targetScoreboard: Ranked[] }>('/dashboard/posture-analytics');
  const g = global.data;
  return (
    <Page title="Estate">
      <Loading loaded={global} />
      {g && (
        <>
          <h2>Global scorecard</h2>
          <dl class="cards">
            <div class="card"><dt>Targets observed</dt><dd>{g.observedTargets} / {g.totalTargets}</dd></div>
            <div class="card"><dt>Risk points</dt><dd>{g.riskPoints}</dd></div>
            <div class="card"><dt>Open critical</dt><dd>{g.openCriticalCount}</dd></div>
            <div class="card"><dt>Open high</dt><dd>{g.openHighCount}</dd></div>
            <div class="card"><dt>Open in KEV</dt><dd>{g.openKevCount}</dd></div>
            <div class="card"><dt>Overdue</dt><dd>{g.overdueCount}</dd></div>
            <div class="card"><dt>Weakest target</dt><dd>{g.weakestTarget ? <a href={targetHref(g.weakestTarget.kind, g.weakestTarget.id)}>{g.weakestTarget.name}</a> : <span class="muted">none</span>}</dd></div>
          </dl>
          <Table caption="Targets by grade" rowKey={(r) => r.grade} rows={g.grades} columns={[
            { label: 'Grade', cell: (r) => <Grade grade={r.grade} /> }, { label: 'Targets', class: 'num', cell: (r) => r.count },
          ]} />
        </>
      )}
      <h2>Trends (last 30 days)</h2>
      <Loading loaded={trends} />
      {trends.data && <TrendChart points={trends.data.points} />}
      {trends.data?.score_formula_changed_on && <p class="muted">The score formula changed on {trends.data.score_formula_changed_on}: scores before and after are not comparable.</p>}
      <h2>Posture scoreboard</h2>
      <Loading loaded={board} />
      <Table caption="Every target you see, best first" rowKey={(r) => `${r.kind}-${r.id}`} rows={board.data?.targetScoreboard ?? null} empty="No target registered yet." columns={[
        { label: 'Rank', class: 'num', cell: (r) => r.rank },
        { label: 'Target', cell: (r) => <a href={targetHref(r.kind, r.id)}>{r.name}</a> },
        { label: 'Kind', cell: (r) => r.kind },
        { label: 'Grade', cell: (r) => <Grade grade={r.grade} /> },
        { label: 'Score', class: 'num', cell: (r) => r.score ?? '—' },
        { label: 'Risk points', class: 'num', cell: (r) => r.riskPoints ?? '—' },
        { label: 'Critical', class: 'num', cell: (r) => r.openCriticalCount },
        { label: 'High', class: 'num', cell: (r) => r.openHighCount },
        { label: 'KEV', class: 'num', cell: (r) => r.openKevCount },
      ]} />
      <Portfolio canCreate={may.createProjects(me)} query={query} />
    </Page>
  );
}

export interface TrendPoint { date: string; riskPoints: number; openCriticalCount: number; openHighCount: number; openKevCount: number; observedTargets: number; lowestScore: number | null }

interface Solution { id: number; name: string; projects: { id: number; name: string }[] }
interface Project { id: number; name: string; solutionId: number | null }

function Compliance({ kind, id }: { kind: 'projects' | 'solutions'; id: number }) {
  const c = useGet<Record<string, any>>(`/${kind}/${id}/compliance`);
  if (!c.data) return <Loading loaded={c} />;
  const d = c.data;
  return (
    <span>
      <Grade grade={d.grade} /> score {d.score ?? '—'}, {d.riskPoints ?? 0} risk points
      {d.weakestTarget && <> · weakest: <a href={targetHref(d.weakestTarget.kind, d.weakestTarget.id)}>{d.weakestTarget.name}</a></>}
    </span>
  );
}

function PortfolioExports({ solutions, projects }: { solutions: Solution[]; projects: Project[] }) {
  const choices = [...projects.map((p) => ({ value: `/projects/${p.id}`, label: `project ${p.name}` })), ...solutions.map((s) => ({ value: `/solutions/${s.id}`, label: `solution ${s.name}` }))];
  const [base, setBase] = useState(choices[0]?.value ?? '');
  return (
    <>
      <h3>Exports of a project or solution</h3>
      <Field label="Export">{(id) => <select id={id} value={base} onChange={(e) => setBase((e.target as HTMLSelectElement).value)}>{choices.map((c) => <option value={c.value}>{c.label}</option>)}</select>}</Field>
      {base && <Exports key={base} base={base} formats={PORTFOLIO_FORMATS} project={base.startsWith('/projects/')} />}
    </>
  );
}

/** Rows per page of the solutions and projects (the API pages them by id, Link rel="next"). */
const PAGE = 50;

/**
 * Solutions and projects with their compliance (GET /solutions/{id}/compliance, /projects/{id}/compliance),
 * each list 50 at a time, its cursor in the address (solutions_after, projects_after); the selects
 * offer every one (the API's largest page).
 */
function Portfolio({ canCreate, query }: { canCreate: boolean; query: URLSearchParams }) {
  const cursors = { solutions_after: query.get('solutions_after') ?? undefined, projects_after: query.get('projects_after') ?? undefined };
  const solutions = useGet<Solution[]>('/solutions', { limit: PAGE, after: cursors.solutions_after });
  const projects = useGet<Project[]>('/projects', { limit: PAGE, after: cursors.projects_after });
  const allSolutions = useGet<Solution[]>('/solutions', { limit: 1000 });
  const allProjects = useGet<Project[]>('/projects', { limit: 1000 });
  const solutionName = (id: number | null) => allSolutions.data?.find((s) => s.id === id)?.name ?? '—';
  const reload = () => { solutions.reload(); projects.reload(); allSolutions.reload(); allProjects.reload(); };
  return (
    <>
      <h2 id="portfolio">Solutions and projects</h2>
      <Loading loaded={solutions} />
      <Table caption="Solutions" rowKey={(s) => s.id} rows={solutions.data} empty="No solution yet." columns={[
        { label: 'Solution', cell: (s) => s.name },
        { label: 'Projects', cell: (s) => s.projects.map((p) => p.name).join(', ') || '—' },
        { label: 'Compliance', cell: (s) => <Compliance kind="solutions" id={s.id} /> },
      ]} />
      <Pager path="/" query={cursors} next={solutions.answer?.next ?? null} prefix="solutions_" of="solutions" />
      <Loading loaded={projects} />
      <Table caption="Projects" rowKey={(p) => p.id} rows={projects.data} empty="No project yet." columns={[
        { label: 'Project', cell: (p) => <a href={href('/targets', { project: p.id })}>{p.name}</a> },
        { label: 'Solution', cell: (p) => solutionName(p.solutionId) },
        { label: 'Compliance', cell: (p) => <Compliance kind="projects" id={p.id} /> },
      ]} />
      <Pager path="/" query={cursors} next={projects.answer?.next ?? null} prefix="projects_" of="projects" />
      {(allProjects.data?.length ?? 0) + (allSolutions.data?.length ?? 0) > 0 && <PortfolioExports solutions={allSolutions.data ?? []} projects={allProjects.data ?? []} />}
      {canCreate && (
        <div class="filters">
          <fieldset><legend>New solution</legend>
            <ActionForm label="Create solution" class="inline" onSubmit={async (f) => { await call('POST', '/solutions', { body: { name: text(f, 'name') } }); reload(); }}>
              <Field label="Solution name">{(id) => <input id={id} name="name" required maxLength={200} />}</Field>
            </ActionForm>
          </fieldset>
          <fieldset><legend>New project</legend>
            <ActionForm label="Create project" class="inline" onSubmit={async (f) => {
              const solution = text(f, 'solution');
              await call('POST', '/projects', { body: { name: text(f, 'name'), solutionId: solution ? Number(solution) : null } });
              reload();
            }}>
              <Field label="Project name">{(id) => <input id={id} name="name" required maxLength={200} />}</Field>
              <Field label="In solution">{(id) => <select id={id} name="solution"><option value="">none</option>{allSolutions.data?.map((s) => <option value={s.id}>{s.name}</option>)}</select>}</Field>
            </ActionForm>
          </fieldset>
        </div>
      )}
    </>
  );
}
