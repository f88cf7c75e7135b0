import { Principal } from './principal';
import type { TargetKind } from '../../domain/shared/target-kind';



/**
 * What a caller sees (spec 1 §2.4, issue 2): administrators everything; others what their teams
 * are granted (a project brings its targets, a grant may also name one target). A key restricted
 * to one target sees that target only, and only if its account sees it too: a restriction
 * narrows, never widens.
 */
export class Visibility {
  constructor(
    readonly all: boolean,
    readonly projectIds: ReadonlySet<number>,
    readonly repositoryIds: ReadonlySet<number>,
    readonly containerIds: ReadonlySet<number>,
    readonly restriction: Principal['restriction'],
  ) {}

  canSee(kind: TargetKind, target: { id: number; project_id?: number | null; projectId?: number | null }): boolean {
    if (this.restriction && (this.restriction.kind !== kind || this.restriction.id !== target.id)) return false;
    if (this.all) return true;
    const projectId = target.project_id ?? target.projectId ?? null;
    if (projectId !== null && this.projectIds.has(projectId)) return true;
    return (kind === 'repository' ? this.repositoryIds : this.containerIds).has(target.id);
  }

  canSeeProject(projectId: number): boolean {
    return this.all || this.projectIds.has(projectId);
  }
}

/** Where a caller's visibility comes from (projections/identity/visibility.ts reads the teams' grants). */
export interface VisibilityReader {
  of(principal: Principal): Promise<Visibility>;
}
