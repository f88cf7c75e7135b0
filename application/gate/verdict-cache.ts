import type { Violation } from '../../domain/gate';
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

/** A verdict as evaluated, with its violations already serialised for the answer. */
export interface EvaluatedVerdict {
  readonly passed: boolean;
  readonly violations: readonly Violation[];
  /** JSON.stringify(violations), made once per entry: 2,200 violations are 409 KiB of text. */
  readonly violationsJson: string;
}

interface Entry {
  version: string;
  verdict: EvaluatedVerdict;
}

/**
 * A target's evaluated verdict under one policy, kept for the state it was evaluated at: the
 * backlog version, the scan observation and (when the policy names a coverage floor) the newest
 * coverage counts. CI pipelines ask about the same target again and again while its backlog stands
 * still; re-reading thousands of candidate rows, evaluating them and serialising thousands of
 * violations on every call was most of a hot target's cost (docs/BENCHMARKS.md, bench:gate). An
 * entry is used only while that state is unchanged, so a verdict never rests on an older backlog
 * than the database holds when the call reads the version.
 *
 * Filled only when the backlog version read before the candidate query equals the one read after
 * it: the rows then belong to that version (the runner commits rows and checkpoints together).
 * Bounded, least recently used first out.
 */
export class VerdictCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = 256) {}

  get(key: string, version: string): EvaluatedVerdict | null {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return null;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.verdict;
  }

  set(key: string, version: string, verdict: EvaluatedVerdict): void {
    this.entries.delete(key);
    this.entries.set(key, { version, verdict });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
