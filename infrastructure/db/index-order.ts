import type { Knex } from 'knex';

/**
 * For the rest of the transaction, PostgreSQL (and PGlite) may not sort: a statement whose ORDER BY
 * an index gives walks that index and stops at its LIMIT. Without fresh statistics (right after a
 * bulk append, or a burst of scan requests; autovacuum analyses a table once a minute at best) the
 * planner otherwise picks a scan and a sort of every matching row for each page. Used where the index
 * is always the right plan: the event log's pages, the audit chain's verification, the claim's
 * candidates. MySQL/MariaDB have no such setting; callers leave them out.
 */
export async function walkIndexOrder(trx: Knex | Knex.Transaction): Promise<void> {
  await trx.raw('SET LOCAL enable_sort = off');
}
