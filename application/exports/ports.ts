import type { ExportIssue, ExportScope, ExportTarget, ScopeKind } from '../../domain/exports/model';
import type { TargetKind } from '../../domain/shared/target-kind';
import type { Principal } from '../identity/principal';

/** A build or scanner component of a target's inventory (spec 1 §4.3: source build, scanner or both). */
export interface InventoryEntry {
  name: string;
  version: string | null;
  purl: string | null;
  type: string;
  source: 'build' | 'scanner' | 'both';
}

/** What the exports read from the read models (projections/backlog/export-reads.ts implements it). */
export interface ExportReads {
  /** The scope and the targets in it the caller sees; 404 alike for unknown and unseen. */
  scope(principal: Principal, kind: ScopeKind, id: number): Promise<{ scope: ExportScope; targets: ExportTarget[]; projectIds: number[] }>;
  /** Every target ever placed in the scope the caller may see (for as_of: membership is then folded). */
  candidateTargets(principal: Principal, kind: ScopeKind, id: number): Promise<Array<{ kind: TargetKind; id: number }>>;
  /** The issues of these targets as the read model holds them now, in pages. */
  issues(targets: readonly ExportTarget[]): AsyncIterable<ExportIssue[]>;
  /** The stream keys of every issue these targets have had (for folding up to an instant). */
  issueKeys(targets: readonly ExportTarget[]): Promise<string[]>;
  /** A project's name and solution, and whether the caller sees it whole (granted the project, not only some targets). */
  project(principal: Principal, id: number): Promise<{ id: number; name: string; solution: { id: number; name: string } | null; whole: boolean }>;
  /** The build components of a repository's branch from its newest build SBOM (accepted at or before `asOf` when given). */
  buildInventory(target: ExportTarget, asOf: string | null): Promise<InventoryEntry[]>;
}
