import { scopeToVisible } from '../../projections/identity/visibility';
import { evaluateGate, GateIssue, GatePolicy, GatePolicyInput, isImportedOrPlugin, LineCoverage, parseGatePolicy, SEVERITIES, SEVERITY_RANK, Severity, Violation } from '../../domain/gate';
import { Role, writes } from '../../domain/identity/roles';
import { refuse } from '../../domain/shared/decider';
import { normaliseBranch, repositoryIdentity, uniquenessKey } from '../../domain/targets';
import { SETTLING_STATUSES, TriageStatus } from '../../domain/triage/status';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { Visibility, VisibilityReader } from '../identity/visibility';
import { TARGET_NOUN, TargetKind } from '../../domain/shared/target-kind';
import { IdGenerator } from '../ports/ids';
import { IdBlocks } from '../shared/id-blocks';
import { BacklogVersion, EvaluatedVerdict, VerdictCache } from './verdict-cache';
import { GateReads, TargetState } from './gate-reads';
import { AppliedPolicy, appliedPolicy, GATE_FAILED_SIEM, StoredViolations, verdictGiven } from '../../domain/gate/verdict-event';
import { streams } from '../../domain/shared/streams';

/** POST /gate (CONVENTIONS.md): one way of naming the target, and an optional policy. */
export interface GateRequest {
  repositoryId?: number;
  containerId?: number;
  repositoryUrl?: string;
  branch?: string;
  policy?: GatePolicyInput | null;
}

export interface GateAnswer {
  id: number;
  targetKind: TargetKind;
  targetId: number;
  passed: boolean;
  violations: readonly Violation[];
  policy: AppliedPolicy;
  at: string;
  /** `violations` as JSON text, made once while the target's state stands still (verdict-cache.ts). */
  violationsJson: string;
}

/**
 * The answer's JSON text: {id, targetKind, targetId, passed, violations, policy, at}, with the
 * violations spliced in as already serialised, so that a hot target's thousands of violations are
 * not serialised again on every call.
 */
export function gateAnswerJson(a: GateAnswer): string {
  const head = JSON.stringify({ id: a.id, targetKind: a.targetKind, targetId: a.targetId, passed: a.passed });
  return `${head.slice(0, -1)},"violations":${a.violationsJson},"policy":${JSON.stringify(a.policy)},"at":${JSON.stringify(a.at)}}`;
}

export interface VerdictFilter {
  targetKind?: TargetKind;
  targetId?: number;
  /** ISO 8601; verdicts at or after it. */
  since?: string;
  limit: number;
  /** Page cursor: verdicts with a smaller id (the list runs newest first). */
  before?: number;
}

/**
 * Spec 1 §5: "a gate key must come from an account that writes; an auditor's or platform governor's
 * key is refused". An account holding a writing role beside auditor or platform governor is still
 * an auditor's (or governor's): refused, so that those who check the gate never pass it themselves.
 */
export function mayAskGate(roles: readonly Role[]): boolean {
  return writes(roles) && !roles.includes('auditor') && !roles.includes('platform_governor');
}

export const MAY_NOT_ASK =
  'The gate is asked by an account that writes (administrator, CISO, security lead, writer); an auditor\'s or platform governor\'s credential may not call it.';

/** Issue types the SQL leaves out without include_plugins; the domain decides again on what it reads. */
const PLUGIN_TYPES = ['imported', 'plugin'].filter(isImportedOrPlugin);

const literals = (values: readonly string[]) => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');

const candidateStatements = new Map<string, { name: string; text: string }>();

/** The candidate query for one policy shape (threshold and flags), built once. */
function candidateStatement(policy: GatePolicy): { name: string; text: string } {
  const shape = `${policy.severity}_${policy.includePlugins ? 1 : 0}${policy.includeTriaged ? 1 : 0}${policy.fixableOnly ? 1 : 0}`;
  let statement = candidateStatements.get(shape);
  if (!statement) {
    const threshold = SEVERITY_RANK[policy.severity];
    const atOrAbove = SEVERITIES.filter((s) => SEVERITY_RANK[s] >= threshold);
    const text = 'SELECT id, identifier, rule_id, severity, package_name, kev, fixable, triage_status, type FROM issues'
      + " WHERE target_kind = ? AND target_id = ? AND status = 'open'"
      + ` AND (kev = TRUE OR severity IN (${literals(atOrAbove)}))`
      + (policy.includePlugins ? '' : ` AND type NOT IN (${literals(PLUGIN_TYPES)})`)
      + (policy.includeTriaged ? '' : ` AND triage_status NOT IN (${literals(SETTLING_STATUSES)})`)
      + (policy.fixableOnly ? ' AND fixable = TRUE' : '')
      + ' ORDER BY id';
    statement = { name: `vigil_gate_candidates_${shape}`, text };
    candidateStatements.set(shape, statement);
  }
  return statement;
}

interface CandidateRow {
  id: number; identifier: string | null; rule_id: string; severity: string; package_name: string | null;
  kev: boolean | number; fixable: boolean | number | null; triage_status: string; type: string;
}

interface VerdictRow {
  id: number; target_kind: TargetKind; target_id: number; passed: boolean | number; violations: string; policy: string;
  account_id: number; api_key_id: number | null; at: string;
}

export function verdictView(r: VerdictRow) {
  const stored = JSON.parse(r.violations) as StoredViolations;
  const passed = Boolean(r.passed);
  return {
    id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id),
    repositoryId: r.target_kind === 'repository' ? Number(r.target_id) : null, containerId: r.target_kind === 'container' ? Number(r.target_id) : null,
    passed, violations: stored.items, violationCount: stored.count, violationsOmitted: stored.count - stored.items.length, counts: stored.counts,
    policy: JSON.parse(r.policy) as AppliedPolicy, accountId: Number(r.account_id), apiKeyId: r.api_key_id === null ? null : Number(r.api_key_id),
    at: r.at, siem: passed ? null : GATE_FAILED_SIEM,
  };
}

/**
 * The CI gate (spec 1 §2.8, §4.1, §7): evaluates a target's open issues under a policy with the pure
 * domain function, and records every verdict as one event (GateVerdictGiven), which the gate
 * projection turns into a row of the verdict register. Refusals (403, 400, 404) happen before
 * anything is read or written.
 */
export class GateService {
  /**
   * Verdict ids come in blocks (application/shared/id-blocks.ts): a sequence write per CI call was
   * one more commit on the gate's path. The register orders by id; with several instances, ids of
   * verdicts given in the same moment may interleave out of time order.
   */
  private readonly verdictIds: IdBlocks;
  /** Evaluated verdicts per target and policy, while the target's state stands (verdict-cache.ts). */
  private readonly evaluated = new VerdictCache();

  constructor(
    private readonly db: Database,
    private readonly visibilities: VisibilityReader,
    private readonly commands: CommandHandler,
    ids: IdGenerator,
    private readonly reads: GateReads,
    private readonly backlogVersion: BacklogVersion,
  ) {
    this.verdictIds = new IdBlocks(ids, 'verdict');
  }

  async ask(ctx: RequestContext, principal: Principal, request: GateRequest): Promise<GateAnswer> {
    if (!mayAskGate(principal.roles)) throw refuse.forbidden(MAY_NOT_ASK);
    const policy = parseGatePolicy(request.policy); // 400 Unknown severity, before anything else is read
    // Read once, on first need: the URL form needs it to pick the repository, every form to see the target.
    let seen: Promise<Visibility> | null = null;
    const visibilityOf = () => (seen ??= this.visibilities.of(principal));
    const target = await this.resolveTarget(visibilityOf, request);
    // Row, scan observation and backlog version in one statement, before the candidate issues
    // (the cache needs the version read first); unknown and unseen targets both answer 404.
    const [state, visibility] = await Promise.all([this.reads.targetState(target.kind, target.id), visibilityOf()]);
    if (!state || !visibility.canSee(target.kind, state.row)) throw refuse.notFound(`No ${TARGET_NOUN[target.kind]} ${target.id} is visible to you.`);
    const [verdict, id] = await Promise.all([this.evaluate(target.kind, target.id, policy, request.policy, state), this.verdictIds.next()]);
    const at = ctx.now.toISOString();
    const applied = appliedPolicy(policy);
    const event = verdictGiven({
      id, targetKind: target.kind, targetId: target.id, passed: verdict.passed, violations: verdict.violations, policy: applied,
      accountId: principal.accountId, keyId: principal.keyId, at,
    });
    await this.commands.appendGrouped([{ stream: streams.gateVerdict(id), events: [event], expectedRevision: 'no_stream' }], ctx);
    return { id, targetKind: target.kind, targetId: target.id, passed: verdict.passed, violations: verdict.violations, policy: applied, at, violationsJson: verdict.violationsJson };
  }

  /**
   * The verdict for the target's current state, from the cache while the backlog version, the scan
   * observation and the coverage counts stand still; otherwise read, evaluated by the pure domain
   * function and kept when the backlog did not move during the read.
   */
  private async evaluate(kind: TargetKind, id: number, policy: GatePolicy, input: GatePolicyInput | null | undefined, state: TargetState): Promise<EvaluatedVerdict> {
    const coverage = policy.minLineCoverage === null ? null : await this.lineCoverage(kind, id);
    const { name } = candidateStatement(policy);
    const key = `${kind}:${id}:${name}:${policy.minLineCoverage ?? '-'}`;
    const observation = state.observation;
    const version = `${state.backlogVersion}/${observation.anyScanCompleted ? 1 : 0}/${observation.newestFinishedScanStatus ?? '-'}`
      + `/${coverage ? `${coverage.linesCovered}:${coverage.linesTotal}` : '-'}`;
    const cached = this.evaluated.get(key, version);
    if (cached) return cached;
    const issues = await this.candidateIssues(kind, id, policy);
    const verdict = evaluateGate({ observation, issues, coverage, policy: input });
    const entry: EvaluatedVerdict = { passed: verdict.passed, violations: verdict.violations, violationsJson: JSON.stringify(verdict.violations) };
    if ((await this.backlogVersion.read()) === state.backlogVersion) this.evaluated.set(key, version, entry);
    return entry;
  }

  /** GET /gate/verdicts: newest first, only verdicts on targets the caller sees. */
  async verdicts(principal: Principal, f: VerdictFilter) {
    const visibility = await this.visibilities.of(principal);
    const k = this.db.knex;
    const q = k('gate_verdicts').orderBy('gate_verdicts.id', 'desc').limit(f.limit + 1)
      .select('id', 'target_kind', 'target_id', 'passed', 'violations', 'policy', 'account_id', 'api_key_id', 'at');
    if (f.before !== undefined) q.where('gate_verdicts.id', '<', f.before);
    if (f.targetKind !== undefined) q.where('gate_verdicts.target_kind', f.targetKind);
    if (f.targetId !== undefined) q.where('gate_verdicts.target_id', f.targetId);
    if (f.since !== undefined) q.where('gate_verdicts.at', '>=', f.since);
    if (!visibility.all || visibility.restriction) {
      q.where((w) => {
        w.whereIn(['gate_verdicts.target_kind', 'gate_verdicts.target_id'] as never, scopeToVisible(visibility, k('repositories').select(k.raw("'repository'"), 'repositories.id'), 'repository') as never)
          .orWhereIn(['gate_verdicts.target_kind', 'gate_verdicts.target_id'] as never, scopeToVisible(visibility, k('containers').select(k.raw("'container'"), 'containers.id'), 'container') as never);
      });
    }
    const rows: VerdictRow[] = await q;
    const items = rows.slice(0, f.limit).map(verdictView);
    return { items, next: rows.length > f.limit ? items[items.length - 1].id : null };
  }

  /** One of the three forms of CONVENTIONS.md; unknown and unseen targets both answer 404. */
  private async resolveTarget(visibilityOf: () => Promise<Visibility>, r: GateRequest): Promise<{ kind: TargetKind; id: number }> {
    const forms = [r.repositoryId, r.containerId, r.repositoryUrl].filter((x) => x !== undefined && x !== null).length;
    if (forms !== 1) throw refuse.invalid('Name the target one way: repositoryId, containerId, or repositoryUrl with branch (default main).');
    if (r.branch !== undefined && r.branch !== null && (r.repositoryUrl === undefined || r.repositoryUrl === null)) {
      throw refuse.invalid('branch goes with repositoryUrl; with repositoryId the repository already names its branch.');
    }
    // By id: existence and visibility are checked on the row the gate's first statement reads.
    if (r.repositoryId !== undefined && r.repositoryId !== null) return { kind: 'repository', id: r.repositoryId };
    if (r.containerId !== undefined && r.containerId !== null) return { kind: 'container', id: r.containerId };
    return { kind: 'repository', id: await this.repositoryByUrl(await visibilityOf(), r.repositoryUrl!, r.branch) };
  }

  /**
   * {repositoryUrl, branch}: the repository with that identity (spec 1 §2.1) and branch (default
   * main). Several may share them with different sub-paths: the root one answers; without a root,
   * a single visible one does; otherwise the caller must name the repositoryId.
   */
  private async repositoryByUrl(visibility: Visibility, url: string, branchInput: string | undefined): Promise<number> {
    const identity = repositoryIdentity(url);
    const branch = normaliseBranch(branchInput);
    type Row = { id: number; project_id: number | null; sub_path: string };
    const seen = (r: Row) => visibility.canSee('repository', { id: Number(r.id), project_id: r.project_id === null ? null : Number(r.project_id) });
    const root: Row | undefined = await this.db.knex('repositories').where({ uniqueness_key: uniquenessKey(identity, branch, '') }).select('id', 'project_id', 'sub_path').first();
    if (root && seen(root)) return Number(root.id);
    const rows: Row[] = (await this.db.knex('repositories').where({ identity, branch }).select('id', 'project_id', 'sub_path').orderBy('id')).filter(seen);
    if (rows.length === 0) throw refuse.notFound(`No repository ${identity} on branch ${branch} is visible to you.`);
    if (rows.length > 1) {
      throw refuse.invalid(`${identity} on branch ${branch} is registered with several sub-paths (${rows.map((r) => r.sub_path).join(', ')}); ask with repositoryId.`);
    }
    return Number(rows[0].id);
  }

  /**
   * One statement, only the columns the gate reads, only the open issues that can violate under the
   * policy: KEV-listed or at or above the threshold, less what the flags leave out. The domain
   * function applies the same rules again to what comes back, so it stays the authority.
   * Prepared per policy shape (at most 32 texts); the vocabularies are our own constants, written
   * into the text so that PostgreSQL's partial indexes of open issues (v009) serve a generic plan.
   */
  private async candidateIssues(kind: TargetKind, id: number, policy: GatePolicy): Promise<readonly GateIssue[]> {
    const { name, text } = candidateStatement(policy);
    const rows = await preparedRows<CandidateRow>(this.db, name, text, [kind, id]);
    return rows.map((r) => ({
      issueId: Number(r.id), identifier: r.identifier ?? r.rule_id, severity: r.severity as Severity, package: r.package_name,
      kev: Boolean(r.kev), fixable: Boolean(r.fixable), triageStatus: r.triage_status as TriageStatus, type: r.type,
    }));
  }

  /** The newest coverage import's line counts (repositories only), for a policy naming min_line_coverage. */
  private async lineCoverage(kind: TargetKind, id: number): Promise<LineCoverage | null> {
    if (kind !== 'repository') return null;
    const row = await this.db.knex('coverage_imports').where({ repository_id: id }).orderBy('id', 'desc').select('lines_covered', 'lines_total').first();
    return row ? { linesCovered: Number(row.lines_covered), linesTotal: Number(row.lines_total) } : null;
  }
}
