import { GrantableTargets } from '../../application/identity/ports';
import { GrantKind } from '../../domain/identity/team';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { TARGET_TABLE } from '../targets/tables';

const GRANT_TABLE: Record<GrantKind, string> = { project: 'projects', ...TARGET_TABLE };

/**
 * What a team grant or a key restriction may name. These rows belong to the targets read model
 * (projections/targets); identity reads them only by id, for existence and a target's project.
 */
export class SqlGrantableTargets implements GrantableTargets {
  constructor(private readonly db: Database) {}

  async target(kind: TargetKind, id: number): Promise<{ id: number; projectId: number | null } | null> {
    const row: { id: number; project_id: number | null } | undefined = await this.db.knex(TARGET_TABLE[kind]).where({ id }).first('id', 'project_id');
    return row ? { id: Number(row.id), projectId: row.project_id === null ? null : Number(row.project_id) } : null;
  }

  async exists(kind: GrantKind, id: number): Promise<boolean> {
    return (await this.db.knex(GRANT_TABLE[kind]).where({ id }).first('id')) !== undefined;
  }
}
