import { evolveTarget, initialTargetState, type TargetEvent, type TargetState } from '../targets/target-events';
import { evolve as evolveTriage } from '../triage/evolve';
import type { TriageStreamEvent } from '../triage/events';
import { initialState as initialTriage, type TriageState } from '../triage/state';
import { TRIAGE_EVENT_TYPES } from '../triage/triage-change';
import type { ExportIssue, ExportTarget } from './model';

/** An event as the log holds it, with the instant it was decided (metadata.at). */
export interface DatedEvent {
  type: string;
  data: unknown;
  at: string;
}

/** The events decided at or before `asOf` (an ISO instant as toISOString writes it): a stream's prefix. */
export function upTo<E extends DatedEvent>(events: readonly E[], asOf: string): E[] {
  const kept: E[] = [];
  for (const e of events) {
    if (Date.parse(e.at) > Date.parse(asOf)) break;
    kept.push(e);
  }
  return kept;
}

const TRIAGE = new Set<string>(TRIAGE_EVENT_TYPES);
const LIFECYCLE = new Set(['IssueDetected', 'IssueResolved', 'IssueReopened']);

/**
 * An issue as it stood at an instant, folded from its stream's events up to then: the finding as
 * IssueDetected stated it (IssueReopened brings a new severity and line) and the triage as the
 * triage decider's own evolve folds it, so the answer equals what the read model held at that moment.
 * Null when the issue did not exist yet.
 */
export function issueAsOf(events: readonly DatedEvent[]): ExportIssue | null {
  return issueStateAsOf(events)?.issue ?? null;
}

/** issueAsOf with the whole triage state folded (pending request, resolution time) and the last event's instant. */
export function issueStateAsOf(events: readonly DatedEvent[]): { issue: ExportIssue; triage: TriageState; lastAt: string } | null {
  let issue: ExportIssue | null = null;
  let triage: TriageState = initialTriage();
  for (const e of events) {
    const d = e.data as Record<string, any>;
    if (e.type === 'IssueDetected' && issue === null) {
      issue = {
        id: Number(d.id), targetKind: d.targetKind, targetId: Number(d.targetId), type: d.type, toolName: d.toolName ?? d.provenance?.toolName ?? '',
        ruleId: d.ruleId, path: d.path ?? '', line: d.line ?? null, severity: d.severity, title: d.title ?? '', identifier: d.identifier ?? null,
        packageName: d.packageName ?? null, packageVersion: d.packageVersion ?? null, fixable: d.fixable ?? null,
        open: true, triageStatus: 'under_review', justification: null, reviewDate: null, firstSeenAt: d.at ?? e.at,
        // Enrichment is not on the issue's stream: the caller folds the feed streams (enrichmentAsOf).
        kev: null, epss: null,
      };
    } else if (e.type === 'IssueReopened' && issue !== null) {
      const before: ExportIssue = issue;
      issue = { ...before, severity: d.severity ?? before.severity, line: d.line ?? before.line };
    }
    if (LIFECYCLE.has(e.type) || TRIAGE.has(e.type)) triage = evolveTriage(triage, { type: e.type, data: e.data } as TriageStreamEvent);
  }
  const found = issue as ExportIssue | null;
  if (!found) return null;
  return {
    issue: { ...found, open: triage.open, triageStatus: triage.triageStatus, justification: triage.justification, reviewDate: triage.reviewDate },
    triage, lastAt: events[events.length - 1].at,
  };
}

/** A target as it stood at an instant (name, place, project); null when not registered yet or deleted by then. */
export function targetAsOf(events: readonly DatedEvent[]): ExportTarget | null {
  const state: TargetState = events.reduce((s, e) => evolveTarget(s, { type: e.type, data: e.data } as TargetEvent), initialTargetState());
  if (state.status !== 'active') return null;
  const t = state.target;
  return {
    kind: t.kind, id: t.id, name: t.name, locator: t.kind === 'repository' ? t.url : t.image,
    branch: t.kind === 'repository' ? t.branch : null, projectId: t.projectId ?? null,
  };
}

/** A project or solution as it stood at an instant (name, solution): null when not created yet. Both are immutable once created today, but read from the log all the same. */
export function portfolioAsOf(events: readonly DatedEvent[]): { name: string; solutionId: number | null } | null {
  let found: { name: string; solutionId: number | null } | null = null;
  for (const e of events) {
    const d = e.data as { name?: string; solutionId?: number | null };
    if (e.type === 'ProjectCreated' || e.type === 'SolutionCreated') found = { name: String(d.name), solutionId: d.solutionId ?? null };
  }
  return found;
}

/**
 * The enrichment in use at an instant, folded from the feed streams up to then (ADR 0007): the KEV
 * catalogue's CVEs (null while no catalogue was synchronised: unknown, S1.1-09) and the EPSS
 * generation in use (null while none). An issue's kev is then whether the catalogue lists its
 * identifier, its epss the generation's score of it, as the enrichment projection computed them then.
 */
export function enrichmentAsOf(kev: readonly DatedEvent[], epss: readonly DatedEvent[]): { kevListed: ReadonlySet<string> | null; epssGeneration: number | null } {
  const listed = new Set<string>();
  let synchronised = false;
  for (const e of kev) {
    const d = e.data as { entries?: Array<{ cve: string }>; cves?: string[] };
    if (e.type === 'KevEntriesListed') for (const x of d.entries ?? []) listed.add(x.cve);
    else if (e.type === 'KevEntriesDelisted') for (const c of d.cves ?? []) listed.delete(c);
    else if (e.type === 'KevCatalogueSynchronised') synchronised = true;
  }
  let generation: number | null = null;
  for (const e of epss) if (e.type === 'EpssScoresSynchronised') generation = Number((e.data as { generation: number }).generation);
  return { kevListed: synchronised ? listed : null, epssGeneration: generation };
}
