import type { BacklogVersion } from '../../application/gate/ports';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';

/**
 * The version of the backlog read model: the newest handled_position (migration v011) of the
 * projections that write `issues`. Any event they apply (an issue found, resolved, triaged, a KEV
 * or EPSS change) moves it; events they do not handle (a verdict, an audit entry) do not.
 */
export class SqlBacklogVersion implements BacklogVersion {
  /** The version as a scalar subquery, for a statement that reads more (SqlGateReads); its `?` take `projections`. */
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
