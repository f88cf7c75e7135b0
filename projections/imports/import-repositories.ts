import type { ImportRepositories, ImportRepository } from '../../application/imports/ports';
import { Database } from '../../infrastructure/db/database';
import { TARGET_TABLE } from '../targets/tables';

/**
 * The import rules' read of a repository (ImportRepositories): the row the targets read model keeps,
 * whoever may see it; ImportAccess then applies the caller's visibility and the source's scope.
 */
export class SqlImportRepositories implements ImportRepositories {
  constructor(private readonly db: Database) {}

  async find(id: number): Promise<ImportRepository | null> {
    return (await this.db.knex(TARGET_TABLE.repository).where({ id }).first()) ?? null;
  }
}
