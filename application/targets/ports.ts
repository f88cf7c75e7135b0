import { refuse } from '../../domain/shared/decider';
import { TARGET_NOUN, TargetKind } from '../../domain/shared/target-kind';
import type { ScheduleView } from '../../domain/targets/schedule';
import { RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';

/** A row of the targets read model (`repositories` or `containers`, projections/targets). */
export interface TargetRow {
  id: number; url?: string; identity?: string; uniqueness_key?: string; branch?: string; sub_path?: string; image?: string; detected_languages?: string | null;
  name: string; project_id: number | null; scan_manual_only: boolean | number; scan_interval_minutes: number | null; scan_cron: string | null;
  last_scheduled_scan_at: string | null; created_at: string; updated_at: string;
  credential_id?: number | null; credential_kind?: string | null;
  required_agent_id?: number | null; required_labels?: string | null;
}

interface TargetViewCommon {
  id: number; name: string; projectId: number | null; scanManualOnly: boolean; scanIntervalMinutes: number | null; scanCron: string | null;
  schedule: ScheduleView; lastScheduledScanAt: string | null; createdAt: string; updatedAt: string;
  requiredAgentId: number | null; requiredLabels: string[];
}
export interface ContainerView extends TargetViewCommon { image: string }
export interface RepositoryView extends TargetViewCommon {
  url: string; identity: string; branch: string; subPath: string; detectedLanguages: string[] | null; sshKeyId: number | null; httpsTokenId: number | null;
}
/** What a target answers with (GET, and every write). */
export type TargetView = RepositoryView | ContainerView;

/** 404 alike for unknown and unseen targets (spec 1 §7). */
export function targetNotVisible(kind: TargetKind, id: number) {
  return refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
}

/** What the target commands read of the targets read model (projections/targets/queries.ts). */
export interface TargetReads {
  /** The row when the caller sees it; null alike for unknown and unseen. */
  findVisible(principal: Principal, kind: TargetKind, id: number): Promise<TargetRow | null>;
  /** The target as the caller sees it (the answer of a write: the command path has waited for the read model). */
  get(principal: Principal, kind: TargetKind, id: number): Promise<TargetView>;
}

/** What the portfolio commands and checks read (projections/targets/portfolio-queries.ts). */
export interface PortfolioReads {
  /** The project exists and the caller sees it (administrators see every project). */
  seesProject(principal: Principal, projectId: number): Promise<boolean>;
  solutionExists(id: number): Promise<boolean>;
  solution(id: number): Promise<{ id: number; name: string; createdAt: string }>;
  project(id: number): Promise<{ id: number; name: string; solutionId: number | null; createdAt: string }>;
}

/** Deleting a target revokes the keys restricted to it (the identity context does it). */
export interface RestrictedKeys {
  revokeKeysRestrictedTo(ctx: RequestContext, kind: TargetKind, id: number): Promise<void>;
}

/** The installation's default scan interval in days (settings), which a target's schedule view shows when it has none. */
export interface ScheduleDefaults {
  defaultIntervalDays(): Promise<number>;
}

/** Whether an agent row exists (projections/agents/queries.ts): a target may be pinned only to one that does. */
export interface AgentDirectory {
  exists(agentId: number): Promise<boolean>;
}
