import type { AgentContacts } from '../../application/agents/ports';
import { Database } from '../db/database';
import { isUniqueViolation } from '../eventstore/sql-event-store';

/** Contact is written at most every 15 seconds (spec 1 §2.7, S1.2.7-09). */
export const CONTACT_WRITE_EVERY_MS = 15_000;

/**
 * The last contact of each agent row in `agent_contacts` (v024), an operational table like the
 * leases: a hello, each poll and each lease renewal count, but a row younger than 15 seconds is left
 * alone, so a fleet of long-polling agents writes little.
 */
export class SqlAgentContacts implements AgentContacts {
  /** What this instance wrote last per agent: a poll within 15 s of it does not reach the database. */
  private readonly written = new Map<number, number>();

  constructor(private readonly db: Database) {}

  async touch(agentId: number, now: Date, address: string | null): Promise<void> {
    const last = this.written.get(agentId);
    if (last !== undefined && now.getTime() - last < CONTACT_WRITE_EVERY_MS && now.getTime() >= last) return;
    this.written.set(agentId, now.getTime());
    const knex = this.db.knex;
    const at = now.toISOString();
    const cutoff = new Date(now.getTime() - CONTACT_WRITE_EVERY_MS).toISOString();
    const updated = await knex('agent_contacts').where({ agent_id: agentId }).where('last_contact_at', '<=', cutoff).update({ last_contact_at: at, address });
    if (Number(updated) > 0) return;
    try {
      await knex('agent_contacts').insert({ agent_id: agentId, last_contact_at: at, address });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error; // a row younger than 15 s: nothing to write
    }
  }
}
