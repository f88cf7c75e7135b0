import { DomainError, refuse } from '../../domain/shared/decider';
import { scanDecider, ScanTargetRef, ScanTrigger } from '../../domain/scans/scan';
import { waitingDecider } from '../../domain/scans/waiting';
import { TARGET_NOUN, type TargetKind } from '../../domain/shared/target-kind';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { VisibilityReader } from '../identity/visibility';
import { WrongExpectedRevision } from '../ports/event-store';
import { IdGenerator } from '../ports/ids';
import { TargetLookup } from './ports';
import { ScanQueueSignal } from './queue-signal';

export type RequestOutcome = { target: ScanTargetRef; scanId: number } | { target: ScanTargetRef; refused: DomainError };

interface RequestOptions {
  requestedBy: number | null;
  requiresCredential?: boolean;
  scheduledAt?: Date;
}

const BATCH = 200;

/** A lost race of a batch is not retried as a batch: its targets are then requested one by one. */
const asIs = { conflict: (error: WrongExpectedRevision) => error };

/**
 * Scan requests (spec 1 §2.2, §3.1, §4.1). A request records ScanRequested on the new scan's stream
 * together with the target's "waiting" reservation (domain/scans/waiting.ts) in one commit, so a
 * second request while one waits is 409 whichever instance takes it. The scheduler requests many
 * targets at once in batches of one commit each. The answers are read from the scans read model
 * (projections/scans/queries.ts).
 */
export class ScanService {
  constructor(
    private readonly visibilities: VisibilityReader,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly targets: TargetLookup,
    private readonly queue: ScanQueueSignal | null = null,
  ) {}

  /**
   * POST /repositories/{id}/scan, /containers/{id}/scan: the route lets administrators only ("an
   * administrator's act"). Answers the new scan's id once the read models have it.
   */
  async request(ctx: RequestContext, principal: Principal, kind: TargetKind, id: number): Promise<{ scanId: number }> {
    const target = await this.targets.visibilityRow(kind, id);
    const visibility = await this.visibilities.of(principal);
    if (!target || !visibility.canSee(kind, target)) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
    const [outcome] = await this.requestScans(ctx, [{ kind, id }], 'manual', { requestedBy: principal.accountId });
    if ('refused' in outcome) throw outcome.refused;
    return { scanId: outcome.scanId };
  }

  /**
   * Requests a scan of each target; a target whose reservation refuses (a scan waits) answers its
   * refusal and the others go on. `scheduledAt` marks a scheduler's round (ScanScheduled, the targets'
   * lastScheduledScanAt). Each batch is one unit of work; a batch that loses a race on one of its
   * reservations is requested again target by target, each unit re-reading its own.
   */
  async requestScans(ctx: RequestContext, targets: readonly ScanTargetRef[], trigger: ScanTrigger, options: RequestOptions): Promise<RequestOutcome[]> {
    const outcomes: RequestOutcome[] = [];
    for (let i = 0; i < targets.length; i += BATCH) {
      const batch = targets.slice(i, i + BATCH);
      const ids = await this.ids.nextBlock('scan', batch.length);
      try {
        outcomes.push(...(await this.requestBatch(ctx, batch, ids, trigger, options, asIs)));
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
        for (let j = 0; j < batch.length; j++) outcomes.push(...(await this.requestBatch(ctx, [batch[j]], [ids[j]], trigger, options)));
      }
    }
    if (outcomes.some((o) => 'scanId' in o)) this.queue?.changed();
    return outcomes;
  }

  /** One unit of work: each target's reservation read and decided, its new scan's stream recorded beside it. */
  private async requestBatch(
    ctx: RequestContext, targets: readonly ScanTargetRef[], ids: readonly number[], trigger: ScanTrigger, options: RequestOptions,
    conflicts: { conflict?: (error: WrongExpectedRevision) => Error } = {},
  ): Promise<RequestOutcome[]> {
    const { value } = await this.commands.transact(ctx, async (unit) => {
      const outcomes: RequestOutcome[] = [];
      const credentialed = options.requiresCredential === undefined
        ? await this.targets.credentialed(targets.filter((t) => t.kind === 'repository').map((t) => t.id))
        : null;
      for (let i = 0; i < targets.length; i++) {
        const target = targets[i];
        const waiting = await unit.load(streams.scanWaiting(target.kind, target.id), waitingDecider);
        let reserved;
        try {
          reserved = waitingDecider.decide({ type: 'Reserve', targetKind: target.kind, targetId: target.id, scanId: ids[i], scheduledAt: options.scheduledAt }, waiting.state);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          outcomes.push({ target, refused: error });
          continue;
        }
        const requiresCredential = options.requiresCredential ?? (target.kind === 'repository' && credentialed!.has(target.id));
        const requested = scanDecider.decide({
          type: 'RequestScan', scanId: ids[i], target, trigger, requiresCredential, requestedBy: options.requestedBy, now: ctx.now,
        }, scanDecider.initialState());
        unit.record(streams.scanWaiting(target.kind, target.id), reserved, waiting.revision ?? 'no_stream');
        unit.record(streams.scan(ids[i]), requested, 'no_stream');
        outcomes.push({ target, scanId: ids[i] });
      }
      return outcomes;
    }, conflicts);
    return value;
  }
}
