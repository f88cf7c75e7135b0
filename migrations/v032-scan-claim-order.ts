import type { Migration } from './index';

/**
 * The claim's candidates in the order they are taken (issue #12, bench:agents). The candidate
 * statement (projections/scans/lifecycle-queries.ts) asks for pending scans oldest due first,
 * `ORDER BY not_before, id LIMIT n`. With the index on (status, not_before) alone the id tie-break
 * was not in the index, so every claim read and sorted every pending scan before taking its few
 * (10,000 waiting scans: about 10 ms a claim with nobody else, 44 ms on average under fifty agents,
 * the database's largest cost). With id in the index the scan walks the pending scans in claim
 * order and stops at the limit (0.1 ms; 1 ms with 800 claimed ones to step over). The old index is
 * this one's prefix and goes. Plain B-tree on every engine (MariaDB has no partial indexes).
 */
export const v032ScanClaimOrder: Migration = {
  name: 'v032-scan-claim-order',
  async up(knex) {
    await knex.schema.alterTable('scans', (t) => {
      t.index(['status', 'not_before', 'id'], 'scans_claim_order_index');
    });
    await knex.schema.alterTable('scans', (t) => {
      t.dropIndex(['status', 'not_before']);
    });
  },
};
