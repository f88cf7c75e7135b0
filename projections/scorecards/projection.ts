import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { KevCatalogueSynchronised, KevEntriesDelisted, KevEntriesListed } from '../../domain/enrichment/feed-events';
import type { IssueDetected, IssueReopened } from '../../domain/backlog/issue';
import { isImportedOrPlugin } from '../../domain/gate/issue-types';
import { isSeverity, type Severity } from '../../domain/gate/severity';
import { type ScanCompletedData, type ScanFailedData } from '../../domain/scans/scan';
import { SCAN_STREAM } from '../../domain/shared/streams';
import { countsInSecurityFigures, gradeFor, RISK_POINTS, riskPointsOfIssue, scoreFromRiskPoints } from '../../domain/scorecards';
import type { TriageStatus } from '../../domain/triage/status';
import { cleanText } from '../engine/column-fit';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * Scorecards maintained from events (spec 1 §2.9), so that no query reads the issues.
 *
 * Per-issue state lives in this projection's own `scorecard_issues` (only issues that can count:
 * imported and plugin issues never do, S1.2.3-17), so the figures never depend on the order in which
 * the runner applies projections or on whether `backlog` was rebuilt with it. Each change of an issue
 * (detected, resolved, reopened, triaged) moves its target's figures by the difference between what
 * the issue counted before and after, in memory. Per batch, events are taken in runs of one UTC day
 * (the day of `metadata.at`); at the end of each run, each target the run touched is written once:
 *   scorecard_targets       open counts by severity and KEV, disallowed licences, riskPoints, score and
 *                           grade as if scanned, `scanned`, `last_scan_failed`;
 *   scorecard_open_ages     counted open issues other than will_not_fix by severity and first-seen
 *                           instant: overdueCount is counted at query time against the remediation
 *                           windows of the settings (remediation_days_*), which move with the clock;
 *   scorecard_trend_points  the target's figures at the end of each earlier day it changed on, written
 *                           when it next changes on another day (its current row stands for its last day).
 * The work per batch follows the events, never the size of a target's backlog, so a replay of a
 * million issues stays a replay. Every value derives from events (times from `metadata.at`); counts
 * add up exactly (riskPoints are multiples of 1/8) and each target's rows depend only on the events
 * that touch it, so where batches or runs happen to split changes nothing: a rebuild, whole or of
 * this projection alone, gives identical rows.
 *
 * Which issues count and how much, the score and the grade come from domain/scorecards
 * (countsInSecurityFigures, riskPointsOfIssue, scoreFromRiskPoints, gradeFor).
 *
 * Scans (the events of `scan-<id>` streams, domain/scans): a ScanCompleted makes the target scanned,
 * clears last_scan_failed and sets its disallowed licences to those the scan reported (each
 * component and licence once); a ScanFailed (final, after the retries) sets last_scan_failed. The
 * newest finished scan is the latest of these in the log. Stop-gap kept beside them: a target also
 * counts as scanned once an issue was detected on it from a scanner's tool key (`scanner:...`),
 * which only a completed scan produces; it scores backlogs put in place without scan events (specs).
 *
 * KEV, as projections/enrichment.ts reads the feed (ADR 0007), from the same events: the catalogue is
 * the fold of KevEntriesListed / KevEntriesDelisted (kept here in scorecard_kev); until the first
 * KevCatalogueSynchronised no issue is known exploited; from then on an issue is exploited while its
 * identifier is listed. Listing or delisting a CVE, and the first synchronisation, change `kev` on the
 * issues it names, which moves their targets' figures like any other change of an issue.
 */
export const SCANNER_TOOL_KEY_PREFIX = 'scanner:';

/** Tables with rows per target (a deleted target's are removed). */
const TARGET_TABLES = ['scorecard_issues', 'scorecard_targets', 'scorecard_open_ages', 'scorecard_trend_points', 'scorecard_badges'] as const;
const TABLES = [...TARGET_TABLES, 'scorecard_kev', 'scorecard_kev_feed'] as const;
const CHUNK = 500;

interface IssueState {
  issue_key: string;
  target_kind: string;
  target_id: number;
  severity: string;
  kev: boolean;
  open: boolean;
  triage_status: string;
  first_seen_at: string;
  identifier: string | null;
}

interface Touched { kind: string; id: number; at: string }

/** What the scans of a run said of a target; absent fields: nothing new. */
interface ScanNews { scanned?: true; failed?: boolean; licenseViolations?: number }

/** The triage status each triage event leaves the issue in (the events that leave it unchanged are not read). */
const TRIAGE_STATUS_AFTER: Record<string, (data: any) => TriageStatus> = {
  TriageDecided: (d) => d.status,
  TriageRequested: () => 'pending_approval',
  TriageProposedByTracker: () => 'pending_approval',
  TriageApproved: (d) => d.status,
  TriageRefused: (d) => d.status,
  TriageReviewExpired: () => 'under_review',
  ExceptionRevoked: () => 'under_review',
};

const ISSUE_EVENTS = new Set(['IssueDetected', 'IssueResolved', 'IssueReopened', ...Object.keys(TRIAGE_STATUS_AFTER)]);
const KEV_EVENTS = ['KevEntriesListed', 'KevEntriesDelisted', 'KevCatalogueSynchronised'];
const HANDLED = new Set([...ISSUE_EVENTS, ...KEV_EVENTS, 'ScanCompleted', 'ScanFailed', 'TargetDeleted', 'ScorecardBadgeIssued', 'ScorecardBadgeRevoked']);

const keyOfTarget = (kind: string, id: number) => `${kind}:${id}`;
const issueKeyOf = (e: RecordedEvent<any>): string => (typeof e.data?.key === 'string' ? e.data.key : e.stream.slice('issue-'.length));

/**
 * Whatever the log holds, this projection keys its state and its SQL lookups by values as its
 * tables store them (ADR 0011): cleaned of U+0000 and lone surrogates (PostgreSQL refuses them in a
 * parameter) and, for the issue's own fields, fitted to scorecard_issues' columns.
 */
type IssueFit = <T extends Record<string, unknown>>(row: T) => T;

/** One projection batch: per-issue state in memory, flushed and folded into the targets' rows at the end of each day's run. */
class Batch {
  private readonly states = new Map<string, IssueState>();
  private readonly dirty = new Set<string>();
  /** Issues that have a row already (loaded, or written by an earlier run of this batch): updated, the others inserted. */
  private readonly stored = new Set<string>();
  private readonly touched = new Map<string, Touched>();
  /** What the run's issue changes add to each touched target's figures. */
  private readonly deltas = new Map<string, Figures>();
  private readonly scans = new Map<string, ScanNews>();
  private day: string | null = null;
  /** Whether the KEV catalogue was ever synchronised, and which CVEs are listed (those the batch asked about or changed). */
  private kevSynchronised = false;
  private readonly kevListed = new Map<string, boolean>();
  private fitIssue: IssueFit = (row) => row;

  constructor(private readonly w: RowWriter) {}

  /** The stored state of every issue the batch changes without detecting it: one read per 500. */
  async load(events: readonly RecordedEvent[]): Promise<void> {
    this.fitIssue = await this.w.fitter('scorecard_issues');
    const keys = [...new Set(events.filter((e) => ISSUE_EVENTS.has(e.type) && e.type !== 'IssueDetected').map((e) => this.issueKey(e)))];
    const identifiers = [...new Set(events.filter((e) => e.type === 'IssueDetected')
      .map((e) => this.fitIssue({ identifier: (e.data as IssueDetected['data']).identifier ?? null }).identifier).filter((x): x is string => !!x))];
    await this.w.run(TABLES, async (trx) => {
      this.kevSynchronised = Boolean(await trx('scorecard_kev_feed').where({ feed: 'kev' }).first('feed'));
      for (let i = 0; i < identifiers.length; i += CHUNK) {
        const listed: Array<{ cve: string }> = await trx('scorecard_kev').whereIn('cve', identifiers.slice(i, i + CHUNK)).select('cve');
        for (const r of listed) this.kevListed.set(r.cve, true);
      }
      for (let i = 0; i < keys.length; i += CHUNK) {
        const rows: IssueState[] = await trx('scorecard_issues').whereIn('issue_key', keys.slice(i, i + CHUNK)).select('*');
        for (const r of rows) {
          this.states.set(r.issue_key, { ...r, target_id: Number(r.target_id), kev: Boolean(r.kev), open: Boolean(r.open) });
          this.stored.add(r.issue_key);
        }
      }
    });
  }

  async apply(e: RecordedEvent<any>): Promise<void> {
    const at = e.metadata.at;
    const day = at.slice(0, 10);
    if (this.day !== null && day !== this.day) await this.closeRun();
    this.day = day;
    switch (e.type) {
      case 'IssueDetected': {
        const d = (e as RecordedEvent<IssueDetected['data']>).data;
        const state: IssueState = this.fitIssue({
          issue_key: d.key, target_kind: d.targetKind, target_id: d.targetId, severity: d.severity, kev: false, open: true,
          triage_status: 'under_review', first_seen_at: d.at, identifier: d.identifier ?? null,
        });
        if (d.toolKey.startsWith(SCANNER_TOOL_KEY_PREFIX)) this.scanNews(state.target_kind, d.targetId).scanned = true;
        this.touch(state.target_kind, d.targetId, at);
        if (isImportedOrPlugin(d.type) || this.states.has(state.issue_key)) return;
        state.kev = this.kevSynchronised && state.identifier !== null && this.kevListed.get(state.identifier) === true;
        this.states.set(state.issue_key, state);
        this.dirty.add(state.issue_key);
        contribute(this.delta(state.target_kind, d.targetId), state, 1);
        return;
      }
      case 'IssueResolved':
        return this.change(this.issueKey(e), at, (s) => { s.open = false; });
      case 'IssueReopened': {
        const d = (e as RecordedEvent<IssueReopened['data']>).data;
        return this.change(this.issueKey(e), at, (s) => { s.open = true; s.severity = d.severity; });
      }
      case 'ScanCompleted': {
        if (!SCAN_STREAM.test(e.stream)) return; // other streams reuse the name
        const d = (e as RecordedEvent<ScanCompletedData>).data;
        const licences = new Set((d.disallowedLicences ?? []).map((l) => `${l.component}\u0000${l.licence}`));
        Object.assign(this.scanNews(cleanText(d.targetKind), d.targetId), { scanned: true, failed: false, licenseViolations: licences.size });
        return this.touch(cleanText(d.targetKind), d.targetId, at);
      }
      case 'ScanFailed': {
        if (!SCAN_STREAM.test(e.stream)) return;
        const d = (e as RecordedEvent<ScanFailedData>).data;
        this.scanNews(cleanText(d.targetKind), d.targetId).failed = true;
        return this.touch(cleanText(d.targetKind), d.targetId, at);
      }
      case 'KevEntriesListed': {
        const d = (e as RecordedEvent<KevEntriesListed['data']>).data;
        for (const x of d.entries) this.w.upsert('scorecard_kev', { cve: x.cve, listed_version: d.version }, ['cve']);
        return this.kevChanged(d.entries.map((x) => cleanText(x.cve)), true, at);
      }
      case 'KevEntriesDelisted': {
        const d = (e as RecordedEvent<KevEntriesDelisted['data']>).data;
        const cves = d.cves.map(cleanText);
        await this.w.run(['scorecard_kev'], async (trx) => {
          for (let i = 0; i < cves.length; i += CHUNK) await trx('scorecard_kev').whereIn('cve', cves.slice(i, i + CHUNK)).del();
        });
        return this.kevChanged(cves, false, at);
      }
      case 'KevCatalogueSynchronised': {
        const d = (e as RecordedEvent<KevCatalogueSynchronised['data']>).data;
        const first = !this.kevSynchronised;
        this.kevSynchronised = true;
        this.w.upsert('scorecard_kev_feed', { feed: 'kev', version: d.version, synchronised_at: d.at ?? at }, ['feed']);
        if (!first) return;
        // From now on the catalogue counts: every issue of a listed CVE is exploited.
        await this.closeRun();
        const rows: IssueState[] = await this.w.run(TABLES, (trx) => trx('scorecard_issues as i').join('scorecard_kev as k', 'k.cve', 'i.identifier').select('i.*'));
        for (const r of rows) this.kevListed.set(r.identifier!, true);
        return this.setKev(rows, true, at);
      }
      case 'TargetDeleted':
        return this.forgetTarget(cleanText(e.data.kind), Number(e.data.id));
      case 'ScorecardBadgeIssued':
        return this.w.insert('scorecard_badges', {
          id: e.data.id, token_hash: e.data.tokenHash, target_kind: e.data.targetKind, target_id: e.data.targetId,
          issued_by: e.data.actor ?? null, issued_at: e.data.at ?? at, revoked_at: null,
        });
      case 'ScorecardBadgeRevoked':
        return this.w.update('scorecard_badges', { id: e.data.id }, { revoked_at: e.data.at ?? at });
      default: {
        const after = TRIAGE_STATUS_AFTER[e.type];
        if (after) this.change(this.issueKey(e), at, (s) => { s.triage_status = after(e.data); });
      }
    }
  }

  /** The end of a day's run (or of the batch): write the changed issues, then each touched target's rows once. */
  async closeRun(): Promise<void> {
    // New issues are inserted (the bulk of a replay), changed ones upserted, in separate writes.
    await this.w.run(['scorecard_issues'], async () => undefined);
    const changed = [...this.dirty].filter((key) => this.stored.has(key));
    for (const key of this.dirty) {
      if (this.stored.has(key)) continue;
      this.w.insert('scorecard_issues', { ...this.states.get(key)! }, ['issue_key']);
      this.stored.add(key);
    }
    this.dirty.clear();
    if (changed.length) {
      await this.w.run(['scorecard_issues'], async () => undefined);
      for (const key of changed) this.w.upsert('scorecard_issues', { ...this.states.get(key)! }, ['issue_key']);
    }
    if (this.touched.size === 0) return;
    const targets = [...this.touched.values()];
    const deltas = new Map(this.deltas);
    const scans = new Map(this.scans);
    const day = this.day!;
    this.touched.clear();
    this.deltas.clear();
    this.scans.clear();

    const before = new Map<string, TargetRow>();
    const ages = new Map<string, number>();
    await this.w.run(TABLES, async (trx) => {
      await perKind(targets, async (kind, ids) => {
        const rows: TargetRow[] = await trx('scorecard_targets').where('target_kind', kind).whereIn('target_id', ids).select('*');
        for (const r of rows) before.set(keyOfTarget(kind, Number(r.target_id)), r);
        const aged = ids.filter((id) => (deltas.get(keyOfTarget(kind, id))?.ages.size ?? 0) > 0);
        if (aged.length === 0) return;
        const ageRows: Array<{ target_id: number; severity: string; first_seen_at: string; issues: number }> = await trx('scorecard_open_ages')
          .where('target_kind', kind).whereIn('target_id', aged).select('target_id', 'severity', 'first_seen_at', 'issues');
        for (const r of ageRows) ages.set(`${keyOfTarget(kind, Number(r.target_id))}|${r.severity}|${r.first_seen_at}`, Number(r.issues));
      });
    });

    const emptied: Array<Record<string, unknown>> = [];
    for (const t of targets) {
      const key = keyOfTarget(t.kind, t.id);
      const was = before.get(key);
      const d = deltas.get(key) ?? emptyFigures();
      const news = scans.get(key) ?? {};
      const open = {
        critical: Number(was?.open_critical ?? 0) + d.critical, high: Number(was?.open_high ?? 0) + d.high,
        medium: Number(was?.open_medium ?? 0) + d.medium, low: Number(was?.open_low ?? 0) + d.low, kev: Number(was?.open_kev ?? 0) + d.kev,
      };
      const licenseViolations = news.licenseViolations ?? Number(was?.license_violations ?? 0);
      // Issues' points as they stood, plus the change; licences replaced by the newest scan's.
      const issuePoints = Number(was?.risk_points ?? 0) - Number(was?.license_violations ?? 0) * RISK_POINTS.disallowedLicence + d.riskPoints;
      const riskPoints = issuePoints + licenseViolations * RISK_POINTS.disallowedLicence;
      const score = scoreFromRiskPoints(riskPoints, open.kev > 0);
      const scanned = Boolean(was?.scanned) || news.scanned === true;
      const lastScanFailed = news.failed ?? Boolean(was?.last_scan_failed);
      const target = { target_kind: t.kind, target_id: t.id };
      this.w.upsert('scorecard_targets', {
        ...target, scanned, last_scan_failed: lastScanFailed, open_critical: open.critical, open_high: open.high, open_medium: open.medium, open_low: open.low,
        open_kev: open.kev, license_violations: licenseViolations, risk_points: riskPoints, score, grade: gradeFor(score), updated_at: t.at,
      }, ['target_kind', 'target_id']);
      // Leaving the day of its last change: that day ended with the row as it stood.
      const lastDay = was?.updated_at.slice(0, 10);
      if (was && lastDay !== day) {
        this.w.upsert('scorecard_trend_points', {
          ...target, day: lastDay, scanned: Boolean(was.scanned), risk_points: Number(was.risk_points), score: Number(was.score),
          open_critical: Number(was.open_critical), open_high: Number(was.open_high), open_kev: Number(was.open_kev),
        }, ['target_kind', 'target_id', 'day']);
      }
      for (const [ageKey, change] of d.ages) {
        if (change === 0) continue;
        const [severity, firstSeenAt] = ageKey.split('|');
        const stored = ages.get(`${key}|${ageKey}`);
        const issues = (stored ?? 0) + change;
        const row = { ...target, severity, first_seen_at: firstSeenAt };
        if (issues > 0) this.w.upsert('scorecard_open_ages', { ...row, issues }, ['target_kind', 'target_id', 'severity', 'first_seen_at']);
        else if (stored !== undefined) emptied.push(row);
      }
    }
    if (emptied.length) {
      await this.w.run(['scorecard_open_ages'], async (trx) => {
        for (const row of emptied) await trx('scorecard_open_ages').where(row).del();
      });
    }
  }

  /** CVEs listed (true) or delisted: once the catalogue counts, their issues' `kev` follows. */
  private async kevChanged(cves: readonly string[], listed: boolean, at: string): Promise<void> {
    for (const cve of cves) this.kevListed.set(cve, listed);
    if (!this.kevSynchronised || cves.length === 0) return;
    await this.closeRun();
    const rows: IssueState[] = [];
    await this.w.run(TABLES, async (trx) => {
      for (let i = 0; i < cves.length; i += CHUNK) rows.push(...await trx('scorecard_issues').whereIn('identifier', cves.slice(i, i + CHUNK)).select('*'));
    });
    this.setKev(rows, listed, at);
  }

  /** Sets `kev` on stored issues (rows just read; the batch's own state of them wins, it is the same after closeRun). */
  private setKev(rows: readonly IssueState[], kev: boolean, at: string): void {
    for (const r of rows) {
      if (!this.states.has(r.issue_key)) this.states.set(r.issue_key, { ...r, target_id: Number(r.target_id), kev: Boolean(r.kev), open: Boolean(r.open) });
      this.stored.add(r.issue_key);
      if (this.states.get(r.issue_key)!.kev !== kev) this.change(r.issue_key, at, (s) => { s.kev = kev; });
    }
  }

  /** The issue's key as scorecard_issues stores it. */
  private issueKey(e: RecordedEvent): string {
    return String(this.fitIssue({ issue_key: issueKeyOf(e) }).issue_key);
  }

  private touch(kind: string, id: number, at: string): void {
    this.touched.set(keyOfTarget(kind, Number(id)), { kind, id: Number(id), at });
  }

  private scanNews(kind: string, id: number): ScanNews {
    const key = keyOfTarget(kind, Number(id));
    let news = this.scans.get(key);
    if (!news) this.scans.set(key, (news = {}));
    return news;
  }

  /** An issue this projection does not hold (imported, plugin, or of a deleted target) changes nothing. */
  private change(key: string, at: string, mutate: (s: IssueState) => void): void {
    const state = this.states.get(key);
    if (!state) return;
    const delta = this.delta(state.target_kind, state.target_id);
    contribute(delta, state, -1);
    mutate(state);
    contribute(delta, state, 1);
    this.dirty.add(key);
    this.touch(state.target_kind, state.target_id, at);
  }

  private delta(kind: string, id: number): Figures {
    const key = keyOfTarget(kind, Number(id));
    let delta = this.deltas.get(key);
    if (!delta) this.deltas.set(key, (delta = emptyFigures()));
    return delta;
  }

  /** A deleted target leaves no scorecard, trend or badge behind (its issues are no one's to see). */
  private async forgetTarget(kind: string, id: number): Promise<void> {
    await this.closeRun();
    for (const [key, s] of this.states) if (s.target_kind === kind && s.target_id === id) this.states.delete(key);
    await this.w.run(TABLES, async (trx) => {
      for (const table of TARGET_TABLES) await trx(table).where({ target_kind: kind, target_id: id }).del();
    });
  }
}

interface TargetRow {
  target_id: number; scanned: boolean | number; last_scan_failed: boolean | number; open_critical: number; open_high: number; open_medium: number;
  open_low: number; open_kev: number; license_violations: number; risk_points: number; score: number; updated_at: string;
}

/** Runs `fn` per kind of target with the ids of that kind, 500 at a time (an index range per kind, never a list of pairs). */
async function perKind(targets: readonly Touched[], fn: (kind: string, ids: number[]) => Promise<void>): Promise<void> {
  for (const kind of [...new Set(targets.map((t) => t.kind))]) {
    const ids = targets.filter((t) => t.kind === kind).map((t) => t.id);
    for (let i = 0; i < ids.length; i += CHUNK) await fn(kind, ids.slice(i, i + CHUNK));
  }
}

/** A target's figures, or the change a run makes to them. */
interface Figures {
  critical: number; high: number; medium: number; low: number; kev: number; riskPoints: number;
  /** `severity|firstSeenAt` -> counted open issues that a remediation window applies to. */
  ages: Map<string, number>;
}

const emptyFigures = (): Figures => ({ critical: 0, high: 0, medium: 0, low: 0, kev: 0, riskPoints: 0, ages: new Map() });

/** Adds (sign 1) or takes away (-1) what one issue counts in its target's figures. */
function contribute(f: Figures, s: IssueState, sign: 1 | -1): void {
  if (!s.open || !isSeverity(s.severity)) return;
  const severity: Severity = s.severity;
  const issue = { severity, kev: s.kev, triageStatus: s.triage_status as TriageStatus };
  if (!countsInSecurityFigures(issue)) return;
  f[severity] += sign;
  if (issue.kev) f.kev += sign;
  f.riskPoints += sign * riskPointsOfIssue(issue);
  // As domain/scorecards/global.ts counts overdue: will_not_fix waits for its review date, not the window.
  if (issue.triageStatus !== 'will_not_fix') {
    const ageKey = `${severity}|${s.first_seen_at}`;
    f.ages.set(ageKey, (f.ages.get(ageKey) ?? 0) + sign);
  }
}

export const scorecardsProjection: Projection = {
  name: 'scorecards',
  handles: HANDLED,
  tables: [...TABLES],
  async apply(w, events) {
    const batch = new Batch(w);
    await batch.load(events);
    for (const e of events) await batch.apply(e);
    await batch.closeRun();
  },
};
