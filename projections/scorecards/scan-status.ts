import type { ScoredTarget } from '../../domain/scorecards';
import { Database } from '../../infrastructure/db/database';

/** A target named by kind and id. */
type TargetRef = Pick<ScoredTarget, 'kind' | 'id'>;

/** The key the scorecards use for a target in sets and maps: `repository:12`. */
export const targetKey = (kind: string, id: number | string): string => `${kind}:${Number(id)}`;

/**
 * What the scorecards' queries learn of the scans (spec 1 §2.9, §4.6):
 * - scanned: a target with at least one completed scan has a score; one without reads NO_DATA;
 * - lastScanFailed: a target whose newest finished scan failed counts in /security/overview's failingCount.
 * `only` narrows the question to some targets; without it the answer covers every target.
 */
export interface ScanStatusPort {
  scanned(only?: readonly TargetRef[]): Promise<ReadonlySet<string>>;
  lastScanFailed(only?: readonly TargetRef[]): Promise<ReadonlySet<string>>;
}

type Row = { target_kind: string; target_id: number };
const CHUNK = 500;

/**
 * The SQL adapter: reads `scorecard_targets.scanned` and `.last_scan_failed`, which the scorecards
 * projection (projections/scorecards/projection.ts) keeps from the scans' own events, the same facts the
 * `scans` read model holds: a ScanCompleted on a `scan-<id>` stream makes its target scanned, the
 * newest of ScanCompleted and ScanFailed says whether the last scan failed. Reading the per-target
 * row rather than `scans` keeps GET /scorecards/global to one row per target (no DISTINCT over every
 * scan ever run), and the trend points agree with it.
 *
 * STOP-GAP, kept beside the scans: a target also counts as scanned once any issue was detected on it
 * from a scanner's tool key (`scanner:...`). Only a completed scan produces such an issue, so this
 * never invents a scan; it scores backlogs put in place without scan events (specs use seedFindings
 * with the default tool key `scanner:vulnerability`). It can be dropped once every path that writes
 * scanner findings goes through ScanCompleted.
 */
export class SqlScanStatus implements ScanStatusPort {
  constructor(private readonly db: Database) {}

  scanned(only?: readonly TargetRef[]): Promise<ReadonlySet<string>> {
    return this.flagged('scanned', only);
  }

  lastScanFailed(only?: readonly TargetRef[]): Promise<ReadonlySet<string>> {
    return this.flagged('last_scan_failed', only);
  }

  private async flagged(flag: 'scanned' | 'last_scan_failed', only?: readonly TargetRef[]): Promise<Set<string>> {
    const out = new Set<string>();
    const query = () => this.db.knex('scorecard_targets').where(flag, true).select('target_kind', 'target_id');
    const collect = (rows: Row[]) => { for (const r of rows) out.add(targetKey(r.target_kind, r.target_id)); };
    if (!only) {
      collect(await query());
      return out;
    }
    for (let i = 0; i < only.length; i += CHUNK) {
      collect(await query().whereIn(['target_kind', 'target_id'], only.slice(i, i + CHUNK).map((t) => [t.kind, t.id])));
    }
    return out;
  }
}
