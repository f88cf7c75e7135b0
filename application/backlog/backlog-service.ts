import { byIdentity, reconcile, unknownKeys } from '../../domain/backlog/reconcile';
import { Finding, Provenance } from '../../domain/backlog/issue';
import { Attempt, CommandHandler, RequestContext, StreamDecision, Transacted } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { BacklogReader, BacklogScope } from './ports';

export type { BacklogScope } from './ports';

export interface IngestOutcome {
  created: number;
  resolved: number;
  reopened: number;
}

/**
 * The record that caused a reconciliation (an import's acceptance, a completed scan), built from its
 * outcome inside the unit of work; it may read streams of its own through the attempt, so that a
 * retry reads them afresh too.
 */
export type IngestRecord = (outcome: IngestOutcome, attempt: Attempt) => StreamDecision | Promise<StreamDecision>;

/**
 * The one ingestion path of findings into the backlog, whoever found them (an import, the
 * built-in worker, a remote agent): reconcile the report with the scope's backlog and append
 * every issue change together with the record that caused it, in one commit. A concurrent write
 * to one of the issues makes the commit fail on its revision; the command handler then runs the
 * reconciliation again against the fresh backlog (its retry policy).
 */
export class BacklogService {
  constructor(private readonly backlog: BacklogReader, private readonly commands: CommandHandler, private readonly ids: IdGenerator) {}

  async ingest(ctx: RequestContext, scope: BacklogScope, findings: readonly Finding[], provenance: Provenance, record: IngestRecord): Promise<IngestOutcome> {
    for (const f of findings) {
      if (f.targetKind !== scope.targetKind || f.targetId !== scope.targetId || !scope.toolKeys.includes(f.toolKey)) {
        throw new Error(`ingest: finding outside its scope (${f.toolKey} on ${f.targetKind} ${f.targetId})`);
      }
    }
    // A suspended async function keeps its parameters and locals alive until it returns: the
    // findings and their index are let go before the read models are waited for, which for a
    // 50,000-result import is the longest part (a caller that lets go of its own array, as the
    // SARIF import does, then holds nothing of the report while the issues are projected). The
    // plan and the decisions live only in the unit of work's frames (commit, below, and the
    // handler's transact), which have returned by then: transact commits without waiting.
    let reported: Map<string, Finding> | null = byIdentity(findings);
    findings = [];
    const { value: outcome, committed } = await this.commit(ctx, scope, reported, provenance, record);
    reported = null;
    if (committed) await this.commands.readYourWrites(committed);
    return outcome;
  }

  /** One unit of work: reconcile against the backlog as it is now and record every change with the revision read. */
  private commit(
    ctx: RequestContext,
    scope: BacklogScope,
    reported: ReadonlyMap<string, Finding>,
    provenance: Provenance,
    record: IngestRecord,
  ): Promise<Transacted<IngestOutcome>> {
    return this.commands.transact(ctx, async (attempt) => {
      const known = await this.backlog.known(scope);
      const fresh = unknownKeys(reported, known);
      const ids = await this.ids.nextBlock('issue', fresh.length);
      const plan = reconcile(reported, known, new Map(fresh.map((k, i) => [k, ids[i]])), provenance, ctx.now.toISOString());
      const outcome = { created: plan.created, resolved: plan.resolved, reopened: plan.reopened };
      const own = await record(outcome, attempt);
      attempt.record(own.stream, own.events, own.expectedRevision);
      for (const c of plan.changes) attempt.record(c.stream, [c.event], c.expectedRevision);
      return outcome;
    }, { wait: false });
  }
}
