import type { GateIssue } from '../../domain/gate';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';

/**
 * The version of the backlog read model: the newest handled_position (migration v011) of the
 * projections that write `issues`. Any event they apply (an issue found, resolved, triaged, a KEV
 * or EPSS change) moves it; events they do not handle (a verdict, an audit entry) do not.
 */
export class BacklogVersion {
  /** The version as a scalar subquery, for a statement that reads more (GateReads); its `?` take `projections`. */
  readonly sql: string;

  constructor(private readonly db: Database, readonly projections: readonly string[]) {
    this.sql = projections.length === 0 ? '0'
      : `(SELECT MAX(handled_position) FROM projection_checkpoints WHERE name IN (${projections.map(() => '?').join(', ')}))`;
  }

  async read(): Promise<string> {
    const rows = await preparedRows<{ version: number | string | null }>(this.db, `vigil_backlog_version_${this.projections.length}`, `SELECT ${this.sql} AS version`, [...this.projections]);
    return String(rows[0]?.version ?? 0);
  }
}

interface Entry {
  version: string;
  issues: GateIssue[];
}

/**
 * A target's candidate issues under one policy shape, kept for the backlog version they were read
 * at. CI pipelines ask about the same target again and again while its backlog stands still; a
 * 20,000-issue target's candidates are a query of thousands of rows each time. An entry is used
 * only while the version is unchanged, so a verdict never rests on an older backlog than the
 * database holds when the call reads the version.
 *
 * Filled only when the version read before the candidate query equals the one read after it: the
 * rows then belong to that version (the runner commits rows and checkpoints together). Bounded,
 * least recently used first out.
 */
export class CandidateCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = 256) {}

  get(key: string, version: string): GateIssue[] | null {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return null;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.issues;
  }

  set(key: string, version: string, issues: GateIssue[]): void {
    this.entries.delete(key);
    this.entries.set(key, { version, issues });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

