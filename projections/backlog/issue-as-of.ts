import { isSeverity } from '../../domain/gate/severity';
import { defaultSettings } from '../../domain/settings/settings';
import { remediationDeadline, type RemediationWindows } from '../../domain/triage/remediation-deadline';
import { enrichmentAsOf, issueStateAsOf, upTo, type DatedEvent } from '../../domain/exports/as-of';
import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import type { Principal } from '../../application/identity/principal';
import type { EventStore } from '../../application/ports/event-store';
import type { IssueQueries } from './issue-queries';

/**
 * GET /issues/{id}?as_of=<instant> (issue #11): the issue as its stream stood at that instant, folded
 * with the triage decider's own evolve, its history cut there; KEV and EPSS as the feeds in use then
 * gave them (the feed streams folded to the instant, the EPSS generation's scores kept in
 * epss_score_history once replaced); the remediation deadline from the remediation_days_* settings in
 * force then (the settings stream folded); `asOf` says which instant answered.
 */
export class IssueAsOfQueries {
  constructor(
    private readonly issues: IssueQueries,
    private readonly store: EventStore,
    private readonly epssScores: (generation: number, cves: readonly string[]) => Promise<Map<string, number>>,
    private readonly windowsOf: (settings: Readonly<Record<string, unknown>>) => RemediationWindows,
  ) {}

  /** The installation settings in force at the instant: the defaults, then every SettingChanged decided by then. */
  private async settingsAt(instant: string): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = defaultSettings();
    for (const e of upTo((await this.store.readStream(streams.settings)).map((x) => ({ type: x.type, data: x.data, at: x.metadata.at })), instant)) {
      if (e.type === 'SettingChanged') { const d = e.data as { name: string; value: unknown }; values[d.name] = d.value; }
    }
    return values;
  }

  /** kev and epss of an identifier at the instant: null (unknown) while the feed was never synchronised, as the read model says it. */
  async enrichment(identifier: string | null, instant: string): Promise<{ kev: boolean | null; epss: number | null }> {
    const folded = async (feed: string): Promise<DatedEvent[]> => upTo((await this.store.readStream(streams.feed(feed))).map((e) => ({ type: e.type, data: e.data, at: e.metadata.at })), instant);
    const { kevListed, epssGeneration } = enrichmentAsOf(await folded('kev'), await folded('epss'));
    const kev = kevListed === null ? null : identifier !== null && kevListed.has(identifier);
    const epss = epssGeneration === null || identifier === null ? null : (await this.epssScores(epssGeneration, [identifier])).get(identifier) ?? null;
    return { kev, epss };
  }

  async get(principal: Principal, id: number, asOf: Date) {
    const key = await this.issues.issueKeyOf(principal, id);
    const instant = asOf.toISOString();
    const events = upTo((await this.store.readStream(streams.issue(key))).map((e) => ({ type: e.type, data: e.data, at: e.metadata.at, revision: e.revision })), instant);
    const folded = issueStateAsOf(events);
    if (!folded) throw refuse.notFound(`Issue ${id} did not exist at ${instant}.`);
    const now = await this.issues.get(principal, id);
    const { issue, triage } = folded;
    const revision = events[events.length - 1].revision;
    return {
      ...now,
      ...(await this.enrichment(now.identifier, instant)),
      status: issue.open ? 'open' : 'resolved', severity: issue.severity, line: issue.line, title: issue.title,
      triageStatus: triage.triageStatus, triageRequestedStatus: triage.triageRequestedStatus, justification: triage.justification, reviewDate: triage.reviewDate,
      remediationDeadline: isSeverity(issue.severity) ? remediationDeadline(now.firstSeenAt, issue.severity, this.windowsOf(await this.settingsAt(instant))) : null,
      resolvedAt: triage.resolvedAt, lastSeenAt: folded.lastAt, revision, history: now.history.filter((h) => h.revision <= revision), asOf: instant,
    };
  }
}
