import { writes } from '../../domain/identity/roles';
import { DomainError, refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import {
  initialState, triageDecider, type DecidableStatus, type NotAffectedJustification, type RefusalStatus, type TriageCommand,
  type TriageState, type TriageStatus,
} from '../../domain/triage';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { WrongExpectedRevision } from '../ports/event-store';
import { issueChangedMeanwhile, parseIfMatch } from './if-match';
import { SettingsReader, VisibleIssues } from './ports';

/** The body of POST /issues/{id}/triage (and the shared decision of POST /issues/triage). */
export interface TriageBody {
  status: DecidableStatus;
  justification?: NotAffectedJustification | null;
  comment?: string | null;
  expires_in_days?: number | null;
}

/** POST /issues/triage: the issues as `{id, ifMatch?}` items or as plain `ids`, one decision for all. */
export interface BulkTriageBody extends TriageBody {
  issues?: Array<{ id: number; ifMatch?: string | null }>;
  ids?: number[];
}

/** What happened to one issue of a bulk triage: an HTTP-like status, and the problem when refused. */
export interface BulkOutcome {
  id: number;
  outcome: number;
  /** urn:vigil:problem:<name> when spec 1 §7 names the refusal, else null. */
  type: string | null;
  detail: string | null;
  /** The issue after the decision (null when refused). */
  triageStatus: TriageStatus | null;
  triageRequestedStatus: string | null;
  etag: string | null;
}

export interface ExceptionReviewBody {
  action: 'confirm' | 'extend' | 'revoke';
  expires_in_days?: number | null;
  comment?: string | null;
}

const KIND_STATUS: Record<DomainError['kind'], number> = { invalid: 400, forbidden: 403, not_found: 404, conflict: 409, gone: 410 };
const BULK_CONCURRENCY = 4;

interface Log { error(message: string, meta?: unknown): void }

/**
 * Triage decisions over HTTP (spec 1 §3.2, §4.5): each loads the issue's stream, asks the triage
 * decider and appends with the revision it read. With If-Match the caller pins the revision it saw
 * (409 issue-changed-meanwhile when a scan, an import or another decision wrote the issue since);
 * without it a concurrent write is retried against the fresh issue by the command handler.
 * Only accounts that write decide; an issue on a target the caller does not see answers 404.
 * A single decision answers nothing: the route then reads the issue (the read models have it).
 */
export class TriageService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly issues: VisibleIssues,
    private readonly settings: SettingsReader,
    private readonly log: Log = { error: () => undefined },
  ) {}

  /** POST /issues/{id}/triage. */
  async triage(principal: Principal, ctx: RequestContext, issueId: number, body: TriageBody, ifMatch?: string | null): Promise<void> {
    const expected = parseIfMatch(ifMatch);
    const command = this.triageCommand(principal, ctx, body, await this.fourEyes());
    await this.decide(principal, ctx, issueId, command, expected);
  }

  /**
   * POST /issues/triage: one decision applied to each issue on its own stream, in request order of
   * the answer. The request as a whole is refused (400, nothing written) when the decision or an
   * If-Match is malformed, an id repeats, or both or neither of `issues` and `ids` are given;
   * otherwise every issue gets its own outcome (200, 403, 404, 409 ...).
   */
  async triageMany(principal: Principal, ctx: RequestContext, body: BulkTriageBody): Promise<{ decided: number; refused: number; results: BulkOutcome[] }> {
    this.assertDecides(principal);
    const items = this.bulkItems(body);
    const command = this.triageCommand(principal, ctx, body, await this.fourEyes());
    const results: BulkOutcome[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await this.bulkOne(principal, ctx, items[index], command);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, items.length) }, worker));
    const decided = results.filter((r) => r.outcome === 200).length;
    return { decided, refused: results.length - decided, results };
  }

  /** POST /issues/{id}/triage-approval `{status}`. */
  async approve(principal: Principal, ctx: RequestContext, issueId: number, status: TriageStatus, ifMatch?: string | null): Promise<void> {
    const expected = parseIfMatch(ifMatch);
    await this.decide(principal, ctx, issueId, { type: 'ApproveTriage', status, actor: actorOf(principal), now: ctx.now }, expected);
  }

  /** POST /issues/{id}/triage-refusal `{status, comment?}`. */
  async turnDown(principal: Principal, ctx: RequestContext, issueId: number, body: { status: RefusalStatus; comment?: string | null }, ifMatch?: string | null): Promise<void> {
    const expected = parseIfMatch(ifMatch);
    const command: TriageCommand = { type: 'RefuseTriage', status: body.status, comment: body.comment ?? null, actor: actorOf(principal), now: ctx.now };
    await this.decide(principal, ctx, issueId, command, expected);
  }

  /** POST /exceptions/{issueId}/reviews `{action, expires_in_days?, comment?}`. */
  async reviewException(principal: Principal, ctx: RequestContext, issueId: number, body: ExceptionReviewBody, ifMatch?: string | null): Promise<void> {
    const expected = parseIfMatch(ifMatch);
    const command: TriageCommand = {
      type: 'ExceptionReview', action: body.action, expiresInDays: body.expires_in_days ?? null, comment: body.comment ?? null,
      actor: actorOf(principal), fourEyes: await this.fourEyes(), now: ctx.now,
    };
    // The body's own rules first (400), before the issue's state or revision is looked at.
    probe(command, { ...initialState(), triageStatus: 'will_not_fix', reviewDate: command.now.toISOString() });
    await this.decide(principal, ctx, issueId, command, expected);
  }

  // ---- internals ---------------------------------------------------------------------------

  private async fourEyes(): Promise<boolean> {
    return (await this.settings.all()).triage_four_eyes === true;
  }

  private assertDecides(principal: Principal): void {
    if (principal.kind !== 'session') throw refuse.forbidden('An integration key may not call this route; sign in.');
    if (!writes(principal.roles)) throw refuse.forbidden('Triage is decided by an account that writes (administrator, CISO, security lead, writer).');
  }

  /** The Triage command, its body checked once (400) before any issue is read. */
  private triageCommand(principal: Principal, ctx: RequestContext, body: TriageBody, fourEyes: boolean): TriageCommand {
    const command: TriageCommand = {
      type: 'Triage', status: body.status, justification: body.justification ?? null, comment: body.comment ?? null,
      expiresInDays: body.expires_in_days ?? null, actor: actorOf(principal), fourEyes, now: ctx.now,
    };
    probe(command, initialState());
    return command;
  }

  /** Decides on the issue's stream; the row is looked up through visibility first (404 alike). */
  private async decide(principal: Principal, ctx: RequestContext, issueId: number, command: TriageCommand, expectedRevision: number | undefined) {
    this.assertDecides(principal);
    const issueKey = await this.issues.issueKeyOf(principal, issueId);
    try {
      return await this.commands.execute(streams.issue(issueKey), triageDecider, command, ctx, { expectedRevision, onConflict: issueChangedMeanwhile });
    } catch (error) {
      // Without If-Match the handler retries; a stream that keeps moving under it ends here.
      if (error instanceof WrongExpectedRevision) throw issueChangedMeanwhile();
      throw error;
    }
  }

  private bulkItems(body: BulkTriageBody): Array<{ id: number; expected: number | undefined }> {
    const hasIssues = Array.isArray(body.issues);
    const hasIds = Array.isArray(body.ids);
    if (hasIssues === hasIds) throw refuse.invalid('Name the issues either as issues: [{id, ifMatch?}] or as ids: [id, ...], not both and not neither.');
    const raw = hasIssues ? body.issues!.map((i, n) => ({ id: i.id, expected: parseIfMatch(i.ifMatch, `issues[${n}].ifMatch`) })) : body.ids!.map((id) => ({ id, expected: undefined }));
    if (raw.length === 0) throw refuse.invalid('Name at least one issue.');
    const seen = new Set<number>();
    for (const item of raw) {
      if (seen.has(item.id)) throw refuse.invalid(`Issue ${item.id} is named twice; name each issue once.`, { id: item.id });
      seen.add(item.id);
    }
    return raw;
  }

  private async bulkOne(principal: Principal, ctx: RequestContext, item: { id: number; expected: number | undefined }, command: TriageCommand): Promise<BulkOutcome> {
    try {
      const decided = await this.decide(principal, ctx, item.id, command, item.expected);
      const state = decided.state as TriageState;
      return {
        id: item.id, outcome: 200, type: null, detail: null, triageStatus: state.triageStatus, triageRequestedStatus: state.triageRequestedStatus,
        etag: decided.revision === null ? null : `"${decided.revision}"`,
      };
    } catch (error) {
      const refused = (outcome: number, type: string | null, detail: string): BulkOutcome =>
        ({ id: item.id, outcome, type, detail, triageStatus: null, triageRequestedStatus: null, etag: null });
      if (error instanceof DomainError) {
        return refused(KIND_STATUS[error.kind], error.problemType ? `urn:vigil:problem:${error.problemType}` : null, error.message);
      }
      this.log.error('Bulk triage: one issue failed', { issueId: item.id, error: (error as Error)?.stack ?? String(error) });
      return refused(500, null, 'Something went wrong on our side for this issue; it has been logged. The others were decided on their own.');
    }
  }
}

/** The triage domain names accounts by text; the account id is the one identity both sides share. */
const actorOf = (principal: Principal) => String(principal.accountId);

/** Runs the decider's body rules on a neutral state: only a bad body (400) escapes; state refusals wait for the real state. */
function probe(command: TriageCommand, state: TriageState): void {
  try {
    triageDecider.decide(command, state);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid') throw error;
  }
}
