import { Principal } from '../../application/identity/principal';
import { VisibilityReader } from '../../application/identity/visibility';
import { PortfolioReads, TargetRow } from '../../application/targets/ports';
import { projectLanguages } from '../../domain/targets/languages';
import { Database } from '../../infrastructure/db/database';
import { scopeToVisible } from '../identity/visibility';

/**
 * Solutions and projects (GET /solutions, /projects), each project's languages over the repositories
 * the caller sees, and what the target and portfolio commands check (PortfolioReads).
 */
export class PortfolioQueries implements PortfolioReads {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader) {}

  /** GET /projects: up to `limit` + 1 of the projects the caller sees after the id `after` (the route pages with the extra one). */
  async pageProjects(principal: Principal, limit: number, after: number) {
    const visibility = await this.visibilities.of(principal);
    const q = this.db.knex('projects').where('id', '>', after).orderBy('id').limit(limit + 1);
    if (!visibility.all) q.whereIn('id', visibility.projectIds.size ? [...visibility.projectIds] : [-1]);
    const rows: { id: number; name: string; solution_id: number | null; created_at: string }[] = await q;
    return rows
      .map((r) => ({ id: Number(r.id), name: r.name, solutionId: r.solution_id === null ? null : Number(r.solution_id), createdAt: r.created_at }));
  }

  /**
   * GET /solutions: up to `limit` + 1 solutions after the id `after`, each project with
   * detectedLanguages and languagesUnknownFor over the repositories the caller sees.
   */
  async pageSolutions(principal: Principal, limit: number, after: number) {
    const visibility = await this.visibilities.of(principal);
    const solutions: { id: number; name: string; created_at: string }[] = await this.db.knex('solutions').where('id', '>', after).orderBy('id').limit(limit + 1);
    const ids = solutions.map((s) => s.id);
    const projects: { id: number; name: string; solution_id: number | null }[] = ids.length ? await this.db.knex('projects').whereIn('solution_id', ids).orderBy('id') : [];
    const projectIds = projects.map((p) => p.id);
    const repos: TargetRow[] = projectIds.length
      ? await scopeToVisible(visibility, this.db.knex('repositories').select('id', 'project_id', 'detected_languages').whereIn('project_id', projectIds), 'repository')
      : [];
    const projectView = (p: { id: number; name: string }) => {
      const langs = projectLanguages(repos.filter((r) => Number(r.project_id) === Number(p.id))
        .map((r) => ({ id: Number(r.id), detectedLanguages: r.detected_languages ? JSON.parse(r.detected_languages) : null })));
      return { id: Number(p.id), name: p.name, ...langs };
    };
    return solutions.map((s) => ({
      id: Number(s.id), name: s.name, createdAt: s.created_at,
      projects: projects.filter((p) => Number(p.solution_id) === Number(s.id) && (visibility.all || visibility.canSeeProject(Number(p.id)))).map(projectView),
    }));
  }

  async projectExists(id: number): Promise<boolean> {
    return Boolean(await this.db.knex('projects').where({ id }).first());
  }

  async seesProject(principal: Principal, projectId: number): Promise<boolean> {
    if (!(await this.projectExists(projectId))) return false;
    return (await this.visibilities.of(principal)).canSeeProject(projectId);
  }

  async solutionExists(id: number): Promise<boolean> {
    return Boolean(await this.db.knex('solutions').where({ id }).first());
  }

  /** A solution just created (the command path waited for the read model). */
  async solution(id: number) {
    const row = await this.db.knex('solutions').where({ id }).first();
    return { id, name: row.name, createdAt: row.created_at };
  }

  /** A project just created. */
  async project(id: number) {
    const row = await this.db.knex('projects').where({ id }).first();
    return { id, name: row.name, solutionId: row.solution_id, createdAt: row.created_at };
  }
}
