import { scopeToVisible } from '../../projections/identity/visibility';
import { DomainError, DomainEvent, refuse } from '../../domain/shared/decider';
import { scanDecider, ScanEvent, ScanTargetRef, ScanTrigger } from '../../domain/scans/scan';
import { waitingDecider } from '../../domain/scans/waiting';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { Visibility, VisibilityReader } from '../identity/visibility';
import { ExpectedRevision, WrongExpectedRevision } from '../ports/event-store';
import { IdGenerator } from '../ports/ids';
import { TargetService } from '../targets/target-service';
import { ScanLeases } from './scan-leases';
import { streams } from '../../domain/shared/streams';

export interface ScanRow {
  id: number; target_kind: TargetKind; target_id: number; trigger: ScanTrigger; status: string; error: string | null; error_kind: string | null;
  last_error: string | null; attempts: number; requires_credential: boolean | number; requested_by: number | null; requested_at: string;
  not_before: string; started_at: string | null; finished_at: string | null; worker: string | null; languages: string | null;
  duration: string | null; steps: string | null; created_count: number | null; resolved_count: number | null; reopened_count: number | null; updated_at: string;
}

export type RequestOutcome = { target: ScanTargetRef; scanId: number } | { target: ScanTargetRef; refused: DomainError };

export interface ScanListFilter {
  repositoryId?: number;
  containerId?: number;
  limit: number;
  /** Scans older than this id (the Link rel="next" cursor; the list is newest first). */
  before?: number;
}

const BATCH = 200;

/**
 * Scan requests and queries (spec 1 §2.2, §3.1, §4.1). A request appends ScanRequested on the new
 * scan's stream together with the target's "waiting" reservation (domain/scans/waiting.ts) in one
 * commit, so a second request while one waits is 409 whichever instance takes it. The scheduler
 * requests many targets at once in batches of one commit each.
 */
export class ScanService {
  constructor(
    private readonly db: Database,
    private readonly visibilities: VisibilityReader,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly targets: TargetService,
    private readonly leases: ScanLeases,
  ) {}

  // ---- commands ----------------------------------------------------------------------------

  /** POST /repositories/{id}/scan, /containers/{id}/scan: the route lets administrators only ("an administrator's act"). */
  async request(ctx: RequestContext, principal: Principal, kind: TargetKind, id: number) {
    await this.targets.visibleRow(principal, kind, id);
    const [outcome] = await this.requestScans(ctx, [{ kind, id }], 'manual', { requestedBy: principal.accountId });
    if ('refused' in outcome) throw outcome.refused;
    return this.view(await this.row(outcome.scanId));
  }

  /**
   * Requests a scan of each target; a target whose reservation refuses (a scan waits) answers its
   * refusal and the others go on. `scheduledAt` marks a scheduler's round (ScanScheduled, the targets'
   * lastScheduledScanAt).
   */
  async requestScans(
    ctx: RequestContext, targets: readonly ScanTargetRef[], trigger: ScanTrigger,
    options: { requestedBy: number | null; requiresCredential?: boolean; scheduledAt?: Date },
  ): Promise<RequestOutcome[]> {
    const outcomes: RequestOutcome[] = [];
    for (let i = 0; i < targets.length; i += BATCH) {
      const batch = targets.slice(i, i + BATCH);
      const ids = await this.ids.nextBlock('scan', batch.length);
      try {
        outcomes.push(...(await this.requestBatch(ctx, batch, ids, trigger, options)));
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
        // Someone wrote one of the reservations meanwhile: one by one, each re-reading its own.
        for (let j = 0; j < batch.length; j++) outcomes.push(await this.requestOne(ctx, batch[j], ids[j], trigger, options));
      }
    }
    return outcomes;
  }

  private async requestOne(
    ctx: RequestContext, target: ScanTargetRef, scanId: number, trigger: ScanTrigger, options: { requestedBy: number | null; requiresCredential?: boolean; scheduledAt?: Date },
  ): Promise<RequestOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.requestBatch(ctx, [target], [scanId], trigger, options))[0];
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= 4) throw error;
      }
    }
  }

  private async requestBatch(
    ctx: RequestContext, targets: readonly ScanTargetRef[], ids: readonly number[], trigger: ScanTrigger,
    options: { requestedBy: number | null; requiresCredential?: boolean; scheduledAt?: Date },
  ): Promise<RequestOutcome[]> {
    const outcomes: RequestOutcome[] = [];
    const appends: Array<{ stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision }> = [];
    const credentialed = options.requiresCredential === undefined ? await this.credentialed(targets) : null;
    for (let i = 0; i < targets.length; i++) {
      const target = targets[i];
      const waiting = await this.commands.load(streams.scanWaiting(target.kind, target.id), waitingDecider);
      let reserved;
      try {
        reserved = waitingDecider.decide({ type: 'Reserve', targetKind: target.kind, targetId: target.id, scanId: ids[i], scheduledAt: options.scheduledAt }, waiting.state);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        outcomes.push({ target, refused: error });
        continue;
      }
      const requested: ScanEvent[] = scanDecider.decide({
        type: 'RequestScan', scanId: ids[i], target, trigger, requiresCredential: options.requiresCredential ?? (target.kind === 'repository' && credentialed!.has(target.id)), requestedBy: options.requestedBy, now: ctx.now,
      }, scanDecider.initialState());
      appends.push({ stream: streams.scanWaiting(target.kind, target.id), events: reserved, expectedRevision: waiting.revision ?? 'no_stream' });
      appends.push({ stream: streams.scan(ids[i]), events: requested, expectedRevision: 'no_stream' });
      outcomes.push({ target, scanId: ids[i] });
    }
    if (appends.length) await this.commands.appendAll(appends, ctx);
    return outcomes;
  }

  /**
   * Repositories of the batch that name a stored credential: their scans need an executor able to
   * hold it (requiresCredential), so without ENCRYPTION_KEY they wait without spending an attempt.
   */
  private async credentialed(targets: readonly ScanTargetRef[]): Promise<Set<number>> {
    const ids = targets.filter((t) => t.kind === 'repository').map((t) => t.id);
    if (ids.length === 0) return new Set();
    const rows: Array<{ id: number }> = await this.db.knex('repositories').whereIn('id', ids).whereNotNull('credential_id').select('id');
    return new Set(rows.map((r) => Number(r.id)));
  }

  // ---- queries -----------------------------------------------------------------------------

  /** GET /scans/{id}: `{scan: {...}}` (CONVENTIONS); 404 alike for unknown and unseen. */
  async get(principal: Principal, id: number) {
    const row = await this.db.knex('scans').where({ id }).first() as ScanRow | undefined;
    if (!row || !(await this.canSee(principal, row))) throw refuse.notFound(`No scan ${id} is visible to you.`);
    return { scan: await this.view(row) };
  }

  /** GET /scans: newest first, only scans of targets the caller sees. */
  async list(principal: Principal, filter: ScanListFilter) {
    const knex = this.db.knex;
    const visibility = await this.visibilities.of(principal);
    const q = knex('scans').orderBy('scans.id', 'desc').limit(filter.limit + 1).select('scans.*');
    if (filter.repositoryId !== undefined) q.where({ 'scans.target_kind': 'repository', 'scans.target_id': filter.repositoryId });
    if (filter.containerId !== undefined) q.where({ 'scans.target_kind': 'container', 'scans.target_id': filter.containerId });
    if (filter.before !== undefined) q.where('scans.id', '<', filter.before);
    if (!visibility.all || visibility.restriction) {
      q.where((w) => {
        w.where((r) => { r.where('scans.target_kind', 'repository').whereIn('scans.target_id', scopeToVisible(visibility, knex('repositories').select('repositories.id'), 'repository')); })
          .orWhere((c) => { c.where('scans.target_kind', 'container').whereIn('scans.target_id', scopeToVisible(visibility, knex('containers').select('containers.id'), 'container')); });
      });
    }
    const rows: ScanRow[] = await q;
    const page = rows.slice(0, filter.limit);
    const leases = await this.leases.of(page.filter((r) => r.status === 'scanning').map((r) => Number(r.id)));
    const items = page.map((r) => this.toView(r, leases.get(`${Number(r.id)}:${Number(r.attempts)}`)?.lease_expires_at ?? null));
    return { items, next: rows.length > filter.limit ? items[items.length - 1].id : null };
  }

  /** The newest scans of a target (for other contexts), newest first. */
  async ofTarget(kind: TargetKind, id: number, limit = 20): Promise<ScanRow[]> {
    return this.db.knex('scans').where({ target_kind: kind, target_id: id }).orderBy('id', 'desc').limit(limit);
  }

  async row(id: number): Promise<ScanRow> {
    const row = await this.db.knex('scans').where({ id }).first() as ScanRow | undefined;
    if (!row) throw new Error(`scan ${id} is not in the read model`);
    return row;
  }

  async view(row: ScanRow) {
    const lease = row.status === 'scanning' ? await this.leases.get(Number(row.id), Number(row.attempts)) : undefined;
    return this.toView(row, lease?.lease_expires_at ?? null);
  }

  private async canSee(principal: Principal, row: ScanRow): Promise<boolean> {
    const visibility = await this.visibilities.of(principal);
    const kind = row.target_kind;
    const target = await this.db.knex(kind === 'repository' ? 'repositories' : 'containers').where({ id: row.target_id }).select('id', 'project_id').first();
    if (!target) return visibility.all && (!visibility.restriction || (visibility.restriction.kind === kind && visibility.restriction.id === Number(row.target_id)));
    return visibility.canSee(kind, { id: Number(target.id), project_id: target.project_id === null ? null : Number(target.project_id) });
  }

  private toView(row: ScanRow, leaseExpiresAt: string | null) {
    const kind = row.target_kind;
    const targetId = Number(row.target_id);
    const num = (v: number | null) => (v === null ? null : Number(v));
    return {
      id: Number(row.id), targetKind: kind, targetId, repositoryId: kind === 'repository' ? targetId : null, containerId: kind === 'container' ? targetId : null,
      status: row.status, error: row.status === 'failed' ? row.error : null, errorKind: row.status === 'failed' ? row.error_kind : null,
      attempts: Number(row.attempts), trigger: row.trigger, requestedAt: row.requested_at, notBefore: row.status === 'pending' ? row.not_before : null,
      startedAt: row.started_at, finishedAt: row.finished_at, worker: row.worker, leaseExpiresAt: row.status === 'scanning' ? leaseExpiresAt : null,
      lastError: row.last_error, requiresCredential: Boolean(row.requires_credential),
      detectedLanguages: row.languages === null ? null : JSON.parse(row.languages) as string[], duration: row.duration,
      steps: row.steps === null ? null : JSON.parse(row.steps) as Record<string, unknown>,
      createdCount: num(row.created_count), resolvedCount: num(row.resolved_count), reopenedCount: num(row.reopened_count),
    };
  }
}
