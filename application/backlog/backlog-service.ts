import { byIdentity, KnownIssue, reconcile, unknownKeys } from '../../domain/backlog/reconcile';
import { Finding, Provenance } from '../../domain/backlog/issue';
import { TargetKind } from '../../domain/shared/target-kind';
import { DomainEvent } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, Committed, RequestContext } from '../command-handler';
import { ExpectedRevision, WrongExpectedRevision } from '../ports/event-store';
import { IdGenerator } from '../ports/ids';

/** Which part of a target's backlog a report speaks for: the tool keys it covers. */
export interface BacklogScope {
  targetKind: TargetKind;
  targetId: number;
  toolKeys: readonly string[];
}

export interface IngestOutcome {
  created: number;
  resolved: number;
  reopened: number;
}

interface IssueRow { id: number; issue_key: string; status: string; resolved_at: string | null; revision: number }

/**
 * The one ingestion path of findings into the backlog, whoever found them (an import, the
 * built-in worker, a remote agent): reconcile the report with the scope's backlog and append
 * every issue change together with the record that caused it, in one commit. A concurrent write
 * to one of the issues makes the commit fail on its revision; the report is then reconciled
 * again against the fresh backlog (bounded).
 */
export class BacklogService {
  constructor(private readonly db: Database, private readonly commands: CommandHandler, private readonly ids: IdGenerator) {}

  async ingest(
    ctx: RequestContext,
    scope: BacklogScope,
    findings: readonly Finding[],
    provenance: Provenance,
    record: (outcome: IngestOutcome) => { stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision },
  ): Promise<IngestOutcome> {
    for (const f of findings) {
      if (f.targetKind !== scope.targetKind || f.targetId !== scope.targetId || !scope.toolKeys.includes(f.toolKey)) {
        throw new Error(`ingest: finding outside its scope (${f.toolKey} on ${f.targetKind} ${f.targetId})`);
      }
    }
    // A suspended async function keeps its parameters and locals alive until it returns: the
    // findings and their index are let go before the read models are waited for, which for a
    // 50,000-result import is the longest part (a caller that lets go of its own array, as the
    // SARIF import does, then holds nothing of the report while the issues are projected).
    let reported: Map<string, Finding> | null = byIdentity(findings);
    findings = [];
    for (let attempt = 0; ; attempt++) {
      let committed: Committed & { outcome: IngestOutcome };
      try {
        committed = await this.commit(ctx, scope, reported, provenance, record);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= 3) throw error;
        continue;
      }
      reported = null;
      await this.commands.readYourWrites(committed);
      return committed.outcome;
    }
  }

  /** One reconciliation against the backlog as it is now, appended in one commit (its plan dies with this frame). */
  private async commit(
    ctx: RequestContext,
    scope: BacklogScope,
    reported: ReadonlyMap<string, Finding>,
    provenance: Provenance,
    record: (outcome: IngestOutcome) => { stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision },
  ): Promise<Committed & { outcome: IngestOutcome }> {
    const known = await this.known(scope);
    const fresh = unknownKeys(reported, known);
    const ids = await this.ids.nextBlock('issue', fresh.length);
    const plan = reconcile(reported, known, new Map(fresh.map((k, i) => [k, ids[i]])), provenance, ctx.now.toISOString());
    const outcome = { created: plan.created, resolved: plan.resolved, reopened: plan.reopened };
    const committed = await this.commands.commit([
      record(outcome),
      ...plan.changes.map((c) => ({ stream: c.stream, events: [c.event], expectedRevision: c.expectedRevision })),
    ], ctx);
    return { ...committed, outcome };
  }

  private async known(scope: BacklogScope): Promise<Map<string, KnownIssue>> {
    const rows: IssueRow[] = await this.db.knex('issues')
      .select('id', 'issue_key', 'status', 'resolved_at', 'revision')
      .where({ target_kind: scope.targetKind, target_id: scope.targetId })
      .whereIn('tool_key', [...scope.toolKeys]);
    return new Map(rows.map((r) => [r.issue_key, { id: Number(r.id), key: r.issue_key, open: r.status === 'open', resolvedAt: r.resolved_at, revision: Number(r.revision) }]));
  }
}

