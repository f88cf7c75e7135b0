import { createHash } from 'node:crypto';
import { AgentCommand, agentDecider, AgentMode, AgentState } from '../../domain/agents/agent';
import { credentialBinding, reportBytes, sealingKeyBytes } from '../../domain/agents/attestation';
import { attestationRow, ATTESTATION_ROWS, credentialRow, CREDENTIAL_ROWS } from '../../domain/agents/credential-state';
import { AgentRefusalEvent, AgentResultSubmitted, RESULT_REFUSED_SIEM, SEALING_KEY_REFUSED_SIEM } from '../../domain/agents/refusals';
import { DomainError, refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { Admission } from '../shared/admission';
import type { Principal } from '../identity/principal';
import { Clock } from '../ports/clock';
import { CloneCredential, ScanFailure, ScanTarget } from '../ports/scanning';
import { ClaimedScan, ScanLifecycle } from '../scans/scan-lifecycle';
import { JobSignal } from './job-signal';
import { AgentContacts, AgentCrypto, AgentReads, AgentRow } from './ports';
import { readFailure, readResult } from './reports';

/** "held at most 30" (S1.4.7-02, S1.8.2-10). */
export const MAX_WAIT_SECONDS = 30;


interface Log {
  warn(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

/** A credential as it travels to a delegated agent: what it is bound to in clear, the secret sealed. */
export type SealedCredential =
  | { kind: 'https_token'; id: number; host: string; username: string; sealed: string }
  | { kind: 'ssh_key'; id: number; knownHosts: string; sealed: string };

export interface AgentJob {
  id: number;
  attempt: number;
  leaseExpiresAt: string;
  target: Omit<ScanTarget, 'credential'>;
  credential?: SealedCredential;
}

/** GET /agent/jobs answers 412 (S1.4.7-03). */
export class CredentialsWithheld extends Error {
  readonly status = 412;
}

export const workerOf = (agentId: number) => `agent:${agentId}`;

/**
 * The control plane's side of the agent protocol (spec 1 §4.7). An agent is an agent key (scope
 * agent); its row's id is the key's id. Scans are claimed, renewed and reported through the same
 * ScanLifecycle as the built-in worker (S1.3.1-21), as executor `agent:<id>` with its max_concurrent
 * counted in the database at each claim.
 */
export class AgentService {
  /**
   * Results and failure reports are recorded a few at a time per instance (VIGIL_AGENT_REPORTS_AT_ONCE,
   * default 4): a flood of them (800 agents' slots reporting at once) waits here in memory instead of
   * in front of the claims at the connection pool, so a claim stays one short wait away (ADR 0017,
   * bench:agents). A result can be 256 MB: the bound also bounds the memory of results being ingested.
   */
  private readonly reports: Admission;

  constructor(
    private readonly commands: CommandHandler,
    private readonly agents: AgentReads,
    private readonly contacts: AgentContacts,
    private readonly lifecycle: ScanLifecycle,
    private readonly credentials: { forTarget(target: ScanTarget): Promise<CloneCredential | undefined> } | null,
    private readonly crypto: AgentCrypto,
    private readonly clock: Clock,
    private readonly signal: JobSignal,
    private readonly log: Log,
    reportsAtOnce = 4,
  ) {
    this.reports = new Admission(reportsAtOnce);
  }

  private agentIdOf(principal: Principal): number {
    if (principal.kind !== 'key' || principal.keyId === null) throw refuse.forbidden('The agent protocol takes an agent key (scope agent).');
    return principal.keyId;
  }

  private async known(agentId: number): Promise<AgentRow> {
    const agent = await this.agents.get(agentId);
    if (!agent) throw refuse.conflict('This agent key has not said hello yet: POST /agent/hello first.');
    return agent;
  }

  private view(agent: AgentRow) {
    const facts = { mode: agent.mode, signingKeyPinned: agent.signingKey !== null, sealingKeyVerified: agent.sealingKey !== null };
    return {
      agentId: agent.id, mode: agent.mode, version: agent.version, labels: agent.labels, maxConcurrent: agent.maxConcurrent,
      signingKeyPinned: agent.signingKey !== null, sealingKeyVerified: agent.sealingKey !== null,
      credentialState: CREDENTIAL_ROWS[credentialRow(facts)], attestation: ATTESTATION_ROWS[attestationRow(facts)],
    };
  }

  // ---- the agent's calls -----------------------------------------------------------------------

  /** POST /agent/hello: creates the row at the first one, records a changed version, mode or labels. */
  async hello(ctx: RequestContext, principal: Principal, body: { version: string; mode?: AgentMode; labels?: string[] }) {
    const agentId = this.agentIdOf(principal);
    await this.commands.execute(streams.agent(agentId), agentDecider, {
      type: 'Hello', agentId, accountId: principal.accountId, version: body.version, mode: body.mode ?? 'local', labels: body.labels ?? [], now: ctx.now,
    }, ctx);
    await this.contacts.touch(agentId, ctx.now, ctx.address ?? null);
    return this.view(await this.known(agentId));
  }

  /** POST /agent/sealing-key: a fresh X25519 key, signed with the pinned signing key's private half. */
  async announceSealingKey(ctx: RequestContext, principal: Principal, body: { publicKey: string; createdAt: string; signature: string }) {
    const agentId = this.agentIdOf(principal);
    await this.known(agentId);
    try {
      await this.commands.execute(streams.agent(agentId), agentDecider, (state: AgentState): AgentCommand => ({
        type: 'AnnounceSealingKey', publicKey: body.publicKey, createdAt: body.createdAt, now: ctx.now,
        signature: state.status === 'registered' && state.signingKey !== null
          && this.crypto.verify(sealingKeyBytes(agentId, body.publicKey, body.createdAt), body.signature, state.signingKey) ? 'valid' : 'invalid',
      }), ctx);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'forbidden') {
        await this.refused(ctx, { type: 'AgentSealingKeyRefused', data: { agentId, reason: error.message, audit: 'AGENT_SEALING_KEY_REFUSED', siem: SEALING_KEY_REFUSED_SIEM } });
      }
      throw error;
    }
    return this.view(await this.known(agentId));
  }

  /**
   * GET /agent/jobs?wait=: claims up to the agent's free slots (its max_concurrent less its claimed,
   * unreported, unexpired scans, counted in the database), holding the request up to `wait` seconds
   * (at most 30) while nothing is claimable. 412 when only credential-bearing scans wait and the
   * agent cannot hold a credential (no verified sealing key).
   */
  async poll(ctx: RequestContext, principal: Principal, options: { wait?: number; slots?: number }, abort?: AbortSignal) {
    const agentId = this.agentIdOf(principal);
    let agent = await this.known(agentId);
    await this.contacts.touch(agentId, ctx.now, ctx.address ?? null);
    const deadline = Date.now() + Math.min(Math.max(options.wait ?? 0, 0), MAX_WAIT_SECONDS) * 1000;
    let seen: string | null = null;
    for (let first = true; ; first = false) {
      const holds = agentHoldsCredentials(agent);
      if (first && options.wait && (await this.signal.nothingClaimableNow())) {
        // The instance's probe (shared by the polls arriving together) sees nothing claimable: wait for news instead of claiming nothing.
        const woken = await this.signal.wait(holds, deadline - Date.now(), abort, seen);
        if (woken === null || abort?.aborted) return { ...this.view(agent), jobs: [] as AgentJob[] };
        seen = woken;
        agent = await this.known(agentId);
        continue;
      }
      // The free slots are counted by the lease store under the agent's own lock (max_concurrent less its live leases).
      const slots = Math.min(options.slots ?? agent.maxConcurrent, agent.maxConcurrent);
      const claims = await this.lifecycle.claim({ worker: workerOf(agentId), agentId, holdsCredentials: holds, labels: agent.labels, limit: agent.maxConcurrent }, slots, { readYourWrites: false });
      const jobs = (await Promise.all(claims.map((c) => this.jobOf(c, agent, holds)))).filter((j): j is AgentJob => j !== null);
      if (jobs.length) return { ...this.view(agent), jobs };
      if (!holds && (await this.lifecycle.waiting(true)) && !(await this.lifecycle.waiting(false))) {
        throw new CredentialsWithheld('Only scans that need a credential wait, and this agent has no verified sealing key: announce a fresh signed one (credentials withheld).');
      }
      const left = deadline - Date.now();
      if (left <= 0 || abort?.aborted) return { ...this.view(agent), jobs: [] as AgentJob[] };
      // Woken only by work this agent may take that it has not tried yet; at the deadline the answer is empty.
      const woken = await this.signal.wait(holds, left, abort, seen);
      if (woken === null || abort?.aborted) return { ...this.view(agent), jobs: [] as AgentJob[] };
      seen = woken;
      agent = await this.known(agentId); // a limit lowered meanwhile applies to this claim
    }
  }

  /** The job as the agent receives it; a delegated agent's credential sealed to its verified key. */
  private async jobOf(claim: ClaimedScan, agent: AgentRow, holds: boolean): Promise<AgentJob | null> {
    const { credential: _none, ...target } = claim.target;
    const job: AgentJob = { id: claim.scanId, attempt: claim.attempt, leaseExpiresAt: claim.leaseExpiresAt, target };
    if (!holds || !this.credentials || claim.target.kind !== 'repository') return job;
    let credential: CloneCredential | undefined;
    try {
      credential = await this.credentials.forTarget(claim.target);
    } catch (error) {
      const failure = error instanceof ScanFailure ? error : new ScanFailure('transient', `The clone credential could not be read: ${(error as Error)?.message ?? String(error)}`);
      await this.lifecycle.fail(claim, failure).catch((e) => this.log.error('A scan outcome could not be recorded; its lease will lapse', { scanId: claim.scanId, error: String(e) }));
      return null;
    }
    if (!credential) return job;
    job.credential = sealCredential(this.crypto, credential, agent.sealingKey!, claim.scanId, claim.attempt);
    return job;
  }

  /** POST /agent/jobs/{id}/lease: a heartbeat of the attempt the agent holds. */
  async renew(ctx: RequestContext, principal: Principal, scanId: number, attempt: number) {
    const agentId = this.agentIdOf(principal);
    await this.contacts.touch(agentId, ctx.now, ctx.address ?? null);
    const claim = await this.heldClaim(agentId, scanId, attempt, 'lease renewal');
    if (!(await this.lifecycle.renew(claim))) throw refuse.conflict(`The lease of scan ${scanId} attempt ${attempt} lapsed or was taken over: abandon the scan.`);
    return { id: scanId, attempt, renewed: true };
  }

  /** POST /agent/jobs/{id}/result: signed when a signing key is pinned (403 otherwise, audited); stale 409. */
  async result(ctx: RequestContext, principal: Principal, scanId: number, body: Buffer, signature: string | undefined) {
    const agentId = this.agentIdOf(principal);
    const agent = await this.known(agentId);
    const report = readResult(body);
    await this.attested(ctx, agent, 'result', scanId, report.attempt, body, signature);
    await this.contacts.touch(agentId, ctx.now, ctx.address ?? null);
    // AGENT_RESULT_SUBMITTED is a decision of the result's own unit of work: appended in the commit
    // that records ScanCompleted and the backlog's changes, or not at all (EVENT-SOURCING.md).
    const acceptedAt = this.clock.now().toISOString();
    const submitted: AgentResultSubmitted = { type: 'AgentResultSubmitted', data: {
      agentId, scanId, attempt: report.attempt, acceptedAt, audit: 'AGENT_RESULT_SUBMITTED',
      description: `Agent ${agentId} submitted the result of scan ${scanId}, attempt ${report.attempt}; accepted at ${acceptedAt}.`,
    } };
    const alongside = [{ stream: streams.agentReports, expectedRevision: 'any' as const, events: [submitted] }];
    const outcome = await this.reports.run(async () => this.lifecycle.complete(await this.heldClaim(agentId, scanId, report.attempt, 'result'), report.result, { alongside }));
    if (outcome === 'refused') throw refuse.conflict(`Scan ${scanId} no longer runs attempt ${report.attempt}: the result is stale.`);
    return { id: scanId, attempt: report.attempt, outcome };
  }

  /** POST /agent/jobs/{id}/failure: one line, scrubbed again here; permanent or transient; names its attempt (repeat or stale: 409). */
  async failure(ctx: RequestContext, principal: Principal, scanId: number, body: Buffer, signature: string | undefined) {
    const agentId = this.agentIdOf(principal);
    const agent = await this.known(agentId);
    const report = readFailure(body);
    await this.attested(ctx, agent, 'failure', scanId, report.attempt, body, signature);
    await this.contacts.touch(agentId, ctx.now, ctx.address ?? null);
    // The decider writes the reason through failureReason: one line, secrets scrubbed, 1,000 characters (S1.4.7-08).
    const outcome = await this.reports.run(async () => {
      const claim = await this.lifecycle.heldLease(scanId, report.attempt, workerOf(agentId));
      if (!claim) throw refuse.conflict(`This agent holds no running attempt ${report.attempt} of scan ${scanId}: the failure report is repeated or stale.`);
      return this.lifecycle.fail(claim, { kind: report.kind, reason: report.reason });
    });
    if (outcome === 'refused') throw refuse.conflict(`Scan ${scanId} no longer runs attempt ${report.attempt}: the failure report is stale.`);
    return { id: scanId, attempt: report.attempt, outcome };
  }

  private async heldClaim(agentId: number, scanId: number, attempt: number, what: string): Promise<ClaimedScan> {
    const claim = await this.lifecycle.claimHeld(scanId, attempt, workerOf(agentId));
    if (!claim) throw refuse.conflict(`This agent holds no running attempt ${attempt} of scan ${scanId}: the ${what} is repeated or stale.`);
    return claim;
  }

  /** With a signing key pinned, the body must be signed (canonical bytes of ADR 0017); refusals are audited (VGL-SEC-015). */
  private async attested(ctx: RequestContext, agent: AgentRow, report: 'result' | 'failure', scanId: number, attempt: number, body: Buffer, signature: string | undefined) {
    if (!agent.signingKey) return;
    const digest = createHash('sha256').update(body).digest('hex');
    const valid = typeof signature === 'string' && signature.length <= 200 && this.crypto.verify(reportBytes(report, agent.id, scanId, attempt, digest), signature, agent.signingKey);
    if (valid) return;
    const reason = signature ? `The ${report} is not signed by the agent's pinned signing key.` : `The ${report} is unsigned, and a signing key is pinned for this agent.`;
    await this.refused(ctx, { type: 'AgentResultRefused', data: { agentId: agent.id, scanId, attempt, report, reason, audit: 'AGENT_RESULT_REFUSED', siem: RESULT_REFUSED_SIEM } });
    throw refuse.forbidden(reason);
  }

  private async refused(ctx: RequestContext, event: AgentRefusalEvent): Promise<void> {
    await this.commands.appendAll([{ stream: streams.agentRefusals, expectedRevision: 'any', events: [event] }], ctx);
  }

  // ---- the administrator's calls ---------------------------------------------------------------

  async setMaxConcurrent(ctx: RequestContext, agentId: number, maxConcurrent: number) {
    await this.commands.execute(streams.agent(agentId), agentDecider, { type: 'SetMaxConcurrent', maxConcurrent, now: ctx.now }, ctx);
    return this.view(await this.known(agentId));
  }

  /** A base64 Ed25519 public key, or `generate`: a pair is made and its private half answered once (never stored). */
  async pinSigningKey(ctx: RequestContext, agentId: number, publicKey: string) {
    const pair = publicKey === 'generate' ? this.crypto.signingPair() : null;
    await this.commands.execute(streams.agent(agentId), agentDecider, { type: 'PinSigningKey', publicKey: pair?.publicKey ?? publicKey, generated: pair !== null, now: ctx.now }, ctx);
    return { ...this.view(await this.known(agentId)), publicKey: pair?.publicKey ?? publicKey, ...(pair ? { privateKey: pair.privateKey } : {}) };
  }

  async removeSigningKey(ctx: RequestContext, agentId: number) {
    await this.commands.execute(streams.agent(agentId), agentDecider, { type: 'RemoveSigningKey', now: ctx.now }, ctx);
    return this.view(await this.known(agentId));
  }

  async deleteSealingKey(ctx: RequestContext, agentId: number) {
    await this.commands.execute(streams.agent(agentId), agentDecider, { type: 'DeleteSealingKey', now: ctx.now }, ctx);
    return this.view(await this.known(agentId));
  }
}

/** A delegated agent may hold a credential: signing key pinned, sealing key verified, 0.11.0 or later (S1.4.7-25, -30). */
export { agentHoldsCredentials } from './capability';
import { agentHoldsCredentials } from './capability';

/** The secret sealed to the agent's verified key, bound to the attempt and to what it carries (S1.4.7-28). */
export function sealCredential(crypto: AgentCrypto, c: CloneCredential, sealingKey: string, scanId: number, attempt: number): SealedCredential {
  if (c.kind === 'https_token') {
    const binding = credentialBinding(scanId, attempt, { kind: 'https_token', host: c.host, username: c.username });
    return { kind: 'https_token', id: c.id, host: c.host, username: c.username, sealed: crypto.seal(Buffer.from(c.token, 'utf8'), sealingKey, binding) };
  }
  const binding = credentialBinding(scanId, attempt, { kind: 'ssh_key' });
  return { kind: 'ssh_key', id: c.id, knownHosts: c.knownHosts, sealed: crypto.seal(Buffer.from(c.privateKey, 'utf8'), sealingKey, binding) };
}
