import type { Migration } from './index';

/**
 * The agents read model (projections/agents/projection.ts, spec 1 §2.7): one row per agent row (an
 * agent key), from the events of its `agent-<id>` stream only.
 */
export const v023Agents: Migration = {
  name: 'v023-agents',
  async up(knex) {
    await knex.schema.createTable('agents', (t) => {
      t.integer('id').primary(); // the agent key's id
      t.integer('account_id').notNullable();
      t.string('version', 64).notNullable();
      t.string('mode', 10).notNullable();
      t.text('labels').notNullable(); // JSON array, sorted
      t.integer('max_concurrent').notNullable();
      t.string('signing_key', 64).nullable(); // base64 Ed25519 public key
      t.boolean('signing_key_generated').notNullable();
      t.string('signing_key_pinned_at', 30).nullable();
      t.string('sealing_key', 64).nullable(); // base64 X25519 public key, verified; null when none or withdrawn
      t.string('sealing_key_created_at', 30).nullable();
      t.string('registered_at', 30).notNullable();
      t.string('updated_at', 30).notNullable();
    });
  },
};
