import { evaluateGate, GatePolicy, GatePolicyInput, parseGatePolicy, Violation } from '../../domain/gate';
import { Role, writes } from '../../domain/identity/roles';
import { refuse } from '../../domain/shared/decider';
import { normaliseBranch, repositoryIdentity, uniquenessKey } from '../../domain/targets';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { Visibility, VisibilityReader } from '../identity/visibility';
import { TARGET_NOUN, TargetKind } from '../../domain/shared/target-kind';
import { IdGenerator } from '../ports/ids';
import { IdBlocks } from '../shared/id-blocks';
import { EvaluatedVerdict, VerdictCache } from './verdict-cache';
import { BacklogVersion, candidateShape, GateReads, RepositoryRef, TargetState } from './ports';
import { AppliedPolicy, appliedPolicy, verdictGiven } from '../../domain/gate/verdict-event';
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
    const coverage = policy.minLineCoverage === null || kind !== 'repository' ? null : await this.reads.lineCoverage(id);
    const key = `${kind}:${id}:${candidateShape(policy)}:${policy.minLineCoverage ?? '-'}`;
    const observation = state.observation;
    const version = `${state.backlogVersion}/${observation.anyScanCompleted ? 1 : 0}/${observation.newestFinishedScanStatus ?? '-'}`
      + `/${coverage ? `${coverage.linesCovered}:${coverage.linesTotal}` : '-'}`;
    const cached = this.evaluated.get(key, version);
    if (cached) return cached;
    const issues = await this.reads.candidateIssues(kind, id, policy);
    const verdict = evaluateGate({ observation, issues, coverage, policy: input });
    const entry: EvaluatedVerdict = { passed: verdict.passed, violations: verdict.violations, violationsJson: JSON.stringify(verdict.violations) };
    if ((await this.backlogVersion.read()) === state.backlogVersion) this.evaluated.set(key, version, entry);
    return entry;
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
    const seen = (r: RepositoryRef) => visibility.canSee('repository', r);
    const root = await this.reads.repositoryByKey(uniquenessKey(identity, branch, ''));
    if (root && seen(root)) return root.id;
    const rows = (await this.reads.repositoriesOf(identity, branch)).filter(seen);
    if (rows.length === 0) throw refuse.notFound(`No repository ${identity} on branch ${branch} is visible to you.`);
    if (rows.length > 1) {
      throw refuse.invalid(`${identity} on branch ${branch} is registered with several sub-paths (${rows.map((r) => r.subPath).join(', ')}); ask with repositoryId.`);
    }
    return rows[0].id;
  }
}
