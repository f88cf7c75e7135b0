import type { AgentReads, AgentRow } from '../../application/agents/ports';
import { agentHoldsCredentials } from '../../application/agents/capability';
import { attestationRow, ATTESTATION_ROWS, credentialRow, CREDENTIAL_ROWS } from '../../domain/agents/credential-state';
import { Database } from '../../infrastructure/db/database';
import { ScanTargetLookup } from '../targets/scan-target-lookup';

/** An agent not heard from for two minutes reads offline (S1.2.7-07). */
export const OFFLINE_AFTER_MS = 2 * 60_000;

interface Row {
  id: number; account_id: number; version: string; mode: 'local' | 'delegated'; labels: string; max_concurrent: number;
  signing_key: string | null; signing_key_generated: boolean | number; signing_key_pinned_at: string | null;
  sealing_key: string | null; sealing_key_created_at: string | null; registered_at: string; last_contact_at?: string | null;
}

const toAgent = (r: Row): AgentRow => ({
  id: Number(r.id), accountId: Number(r.account_id), version: r.version, mode: r.mode, labels: JSON.parse(r.labels) as string[],
  maxConcurrent: Number(r.max_concurrent), signingKey: r.signing_key, sealingKey: r.sealing_key, sealingKeyCreatedAt: r.sealing_key_created_at,
});

/** The `agents` read model (projections/agents/projection.ts) with last contacts and loads. */
export class AgentQueries implements AgentReads {
  constructor(private readonly db: Database, private readonly targets: ScanTargetLookup) {}

  async exists(id: number): Promise<boolean> {
    return (await this.db.knex('agents').where({ id }).first('id')) !== undefined;
  }

  async get(id: number): Promise<AgentRow | null> {
    const row: Row | undefined = await this.db.knex('agents').where({ id }).first();
    return row ? toAgent(row) : null;
  }

  /** GET /admin/agents: status, version, labels, load and credential state of every agent row. */
  async list(now: Date) {
    const knex = this.db.knex;
    const rows: Row[] = await knex('agents as a').leftJoin('agent_contacts as c', 'c.agent_id', 'a.id').select('a.*', 'c.last_contact_at').orderBy('a.id');
    const loads: Array<{ worker: string; n: number }> = await knex('scan_leases').where('worker', 'like', 'agent:%').where('lease_expires_at', '>', now.toISOString())
      .groupBy('worker').select('worker').count({ n: '*' });
    const load = new Map(loads.map((l) => [l.worker, Number(l.n)]));
    return rows.map((r) => {
      const a = toAgent(r);
      const online = r.last_contact_at ? now.getTime() - Date.parse(r.last_contact_at) < OFFLINE_AFTER_MS : false;
      const facts = { mode: a.mode, signingKeyPinned: a.signingKey !== null, sealingKeyVerified: a.sealingKey !== null };
      return {
        id: a.id, accountId: a.accountId, status: online ? 'online' : 'offline', lastContactAt: r.last_contact_at ?? null, version: a.version, mode: a.mode,
        labels: a.labels, maxConcurrent: a.maxConcurrent, load: load.get(`agent:${a.id}`) ?? 0, registeredAt: r.registered_at,
        signingKey: a.signingKey, signingKeyPinnedAt: r.signing_key_pinned_at, sealingKey: a.sealingKey, sealingKeyCreatedAt: a.sealingKeyCreatedAt,
        credentialState: CREDENTIAL_ROWS[credentialRow(facts)], attestation: ATTESTATION_ROWS[attestationRow(facts)],
        holdsCredentials: agentHoldsCredentials(a),
      };
    });
  }

  /** Waiting scans that need a credential (requested so, or of a repository naming one now), oldest first. */
  async pendingCredentialed(limit: number): Promise<Array<{ id: number; targetKind: string; targetId: number; requestedAt: string; notBefore: string }>> {
    const knex = this.db.knex;
    const rows = await knex('scans as s').where('s.status', 'pending')
      .where((q) => { q.where('s.requires_credential', true).orWhereExists(this.targets.namingCredential('s')); })
      .orderBy([{ column: 's.not_before' }, { column: 's.id' }]).limit(limit).select('s.id', 's.target_kind', 's.target_id', 's.requested_at', 's.not_before');
    return rows.map((r: { id: number; target_kind: string; target_id: number; requested_at: string; not_before: string }) => ({
      id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id), requestedAt: r.requested_at, notBefore: r.not_before,
    }));
  }

  /**
   * GET /admin/agents/credentialed-backlog (S1.4.7-14): the waiting scans that need a credential while
   * no executor can serve them: the built-in worker cannot hold credentials (off, or no ENCRYPTION_KEY)
   * and no online delegated agent has a pinned signing key, a verified sealing key and 0.11.0 or later.
   */
  async credentialedBacklog(now: Date, builtInHoldsCredentials: boolean, limit = 500) {
    const served = builtInHoldsCredentials || (await this.list(now)).some((a) => a.status === 'online' && a.holdsCredentials);
    const scans = served ? [] : await this.pendingCredentialed(limit);
    return { servedBy: served ? (builtInHoldsCredentials ? 'built-in worker' : 'delegated agents') : null, scans };
  }
}
