import type { EvidenceRecord, EvidenceStore } from '../../application/exports/ports';
import { Database } from '../db/database';

type Row = Record<string, any>;
const COLUMNS = ['id', 'project_id', 'account_id', 'created_at', 'expires_at', 'sha256', 'size', 'manifest', 'purged_at'];
const record = (r: Row): EvidenceRecord => ({
  id: Number(r.id), projectId: Number(r.project_id), accountId: Number(r.account_id), createdAt: r.created_at, expiresAt: r.expires_at,
  sha256: r.sha256, size: Number(r.size), manifest: r.manifest, purgedAt: r.purged_at ?? null,
});

/** evidence_bundles (v020): written by the evidence service, not a projection (the bytes are not events). */
export class SqlEvidenceStore implements EvidenceStore {
  constructor(private readonly db: Database) {}

  async save(r: EvidenceRecord, content: Buffer): Promise<void> {
    await this.db.knex('evidence_bundles').insert({
      id: r.id, project_id: r.projectId, account_id: r.accountId, created_at: r.createdAt, expires_at: r.expiresAt, sha256: r.sha256, size: r.size,
      manifest: r.manifest, content, purged_at: null,
    });
  }

  async list(projectId: number): Promise<EvidenceRecord[]> {
    return ((await this.db.knex('evidence_bundles').where({ project_id: projectId }).orderBy('id', 'desc').select(COLUMNS)) as Row[]).map(record);
  }

  async content(projectId: number, id: number) {
    const row: Row | undefined = await this.db.knex('evidence_bundles').where({ project_id: projectId, id }).first();
    if (!row) return null;
    return { record: record(row), content: row.content ? Buffer.from(row.content) : null };
  }

  async purgeExpired(now: string): Promise<number> {
    return Number(await this.db.knex('evidence_bundles').where('expires_at', '<=', now).whereNull('purged_at').update({ content: null, purged_at: now }));
  }
}
