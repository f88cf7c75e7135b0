import { SEVERITIES } from '../../domain/gate/severity';
import { remediationDeadline } from '../../domain/triage/remediation-deadline';
import { streams } from '../../domain/shared/streams';
import { WrongExpectedRevision } from '../ports/event-store';
import { CommandHandler } from '../command-handler';
import { Clock } from '../ports/clock';
import { IntervalLoop } from '../shared/interval-loop';
import { remediationWindowsOf } from './remediation-windows';
import { PassedDeadlines, SettingsReader } from './ports';

interface Log {
  info(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

const BATCH = 500;
const DAY_MS = 86_400_000;
/** Only deadlines passed within the last seven days signal (spec 2 §6, S2.6-61). */
export const LOOKBACK_MS = 7 * DAY_MS;

/**
 * The hourly turn of remediation deadlines (spec 2 §6, VGL-SEC-030): an open issue not settled by
 * triage whose deadline (first seen plus its severity's window, remediation_days_*) passed since the
 * previous turn, and within the last seven days, gets `RemediationDeadlinePassed` on a stream of its
 * own, appended once (no_stream: a second instance, or a turn after a restart looking back seven days
 * again, meets the first one's event and moves on). The SIEM outbox signals it with the issue's
 * severity (critical 8, high 7, medium 5, low 3). The issue's own stream is left alone, so its ETag
 * does not move.
 */
export class DeadlineWatch {
  private readonly loop = new IntervalLoop(
    () => this.runOnce(),
    (error) => this.log.error('Remediation deadline turn failed; the next turn tries again', { error: (error as Error)?.stack ?? String(error) }),
  );
  /** Where the previous turn of this process looked up to (null: look back seven days). */
  private lookedTo: number | null = null;

  constructor(
    private readonly deadlines: PassedDeadlines,
    private readonly settings: SettingsReader,
    private readonly commands: CommandHandler,
    private readonly clock: Clock,
    private readonly log: Log = { info: () => undefined, error: () => undefined },
  ) {}

  /** One turn: every deadline passed since the previous turn (at most seven days ago); answers how many were recorded. */
  async runOnce(): Promise<{ passed: number }> {
    const now = this.clock.now();
    const from = Math.max(now.getTime() - LOOKBACK_MS, this.lookedTo ?? Number.NEGATIVE_INFINITY);
    const windows = remediationWindowsOf(await this.settings.all());
    let passed = 0;
    for (const severity of SEVERITIES) {
      // Deadline in (from, now]: first seen in (from - window, now - window]; the query's span is [a, b).
      const windowMs = windows[severity] * DAY_MS;
      const lower = new Date(from - windowMs + 1).toISOString();
      const upper = new Date(now.getTime() - windowMs + 1).toISOString();
      let after = 0;
      for (;;) {
        const due = await this.deadlines.firstSeenBetween(severity, lower, upper, after, BATCH);
        for (const issue of due) {
          const deadline = remediationDeadline(issue.firstSeenAt, issue.severity, windows);
          if (Date.parse(deadline) >= now.getTime()) continue; // the deadline instant itself is still on time
          try {
            await this.commands.appendAll([{
              stream: streams.remediationDeadline(issue.issueKey), expectedRevision: 'no_stream',
              events: [{ type: 'RemediationDeadlinePassed', data: { id: issue.id, key: issue.issueKey, targetKind: issue.targetKind, targetId: issue.targetId, severity: issue.severity, deadline } }],
            }], { actor: null, address: null, userAgent: null, correlationId: 'deadline-watch', now });
            passed += 1;
          } catch (error) {
            if (!(error instanceof WrongExpectedRevision)) throw error; // recorded already
          }
        }
        if (due.length < BATCH) break;
        after = due[due.length - 1].id;
      }
    }
    // A deadline at this very instant was still on time: the next turn takes it.
    this.lookedTo = now.getTime() - 1;
    if (passed) this.log.info(`Remediation deadlines passed: ${passed} issue(s) signalled (VGL-SEC-030)`);
    return { passed };
  }

  start(intervalMs: number): void {
    this.loop.start(intervalMs);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
