import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import type { Logger } from 'winston';
import { Clock } from '../ports/clock';
import { EventStore } from '../ports/event-store';
import { ChainVerification, ChainVerifier } from './ports';

/**
 * The periodic verification of the audit chain (VIGIL_AUDIT_VERIFY_INTERVAL, one hour by default;
 * GET /audit-log/verification stays read-only, so verifying never changes what is verified). A failure is
 * audited once (AuditVerificationFailed on stream `audit-verification`, which signals VGL-SEC-018,
 * spec 2 §6): again only when what is broken changes (another entry or another reason), so that
 * polling a broken log does not flood the log and the SIEM.
 */
export class AuditService {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly verifier: ChainVerifier, private readonly store: EventStore, private readonly commands: CommandHandler, private readonly clock: Clock, private readonly log: Logger) {}

  start(intervalMs: number): void {
    if (this.timer || intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.verifyAndSignal({ actor: null, now: this.clock.now() }).catch((e) => this.log.error(`Audit verification turn failed: ${(e as Error).message}`));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async verifyAndSignal(ctx: RequestContext): Promise<ChainVerification & { signalled: boolean }> {
    const result = await this.verifier.verify();
    if (result.valid) return { ...result, signalled: false };
    const recorded = await this.store.readStream<{ brokenAt: number | null; reason: string | null }>(streams.auditVerification);
    const last = recorded.filter((e) => e.type === 'AuditVerificationFailed').pop();
    if (last && last.data.brokenAt === result.brokenAt && last.data.reason === result.reason) return { ...result, signalled: false };
    await this.commands.appendAll([{
      stream: streams.auditVerification, expectedRevision: 'any',
      events: [{ type: 'AuditVerificationFailed', data: { brokenAt: result.brokenAt, brokenPosition: result.brokenPosition, differs: result.differs, reason: result.reason, entries: result.entries } }],
    }], ctx);
    return { ...result, signalled: true };
  }
}
