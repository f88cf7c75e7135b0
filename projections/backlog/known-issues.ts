import type { BacklogReader, BacklogScope } from '../../application/backlog/ports';
import type { KnownIssue } from '../../domain/backlog/reconcile';
import { Database } from '../../infrastructure/db/database';

interface KnownRow { id: number; issue_key: string; status: string; resolved_at: string | null; revision: number }

/** The ingestion path's read of a scope's backlog (BacklogReader): every issue of the target under the scope's tool keys. */
export class SqlBacklogReader implements BacklogReader {
  constructor(private readonly db: Database) {}

  async known(scope: BacklogScope): Promise<Map<string, KnownIssue>> {
    const rows: KnownRow[] = await this.db.knex('issues')
      .select('id', 'issue_key', 'status', 'resolved_at', 'revision')
      .where({ target_kind: scope.targetKind, target_id: scope.targetId })
      .whereIn('tool_key', [...scope.toolKeys]);
    return new Map(rows.map((r) => [r.issue_key, { id: Number(r.id), key: r.issue_key, open: r.status === 'open', resolvedAt: r.resolved_at, revision: Number(r.revision) }]));
  }
}
