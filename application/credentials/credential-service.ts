import { credentialDecider, CredentialKind, inspectPrivateKey, normaliseTokenHost, parseKnownHosts, SaveCredential, validateToken, validateTokenUser } from '../../domain/credentials';
import { DomainError, refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { SecretBox } from '../ports/secret-box';
import { streams } from '../../domain/shared/streams';

export interface CredentialRow {
  id: number; kind: CredentialKind; name: string; host: string | null; username: string | null;
  public_key_type: string | null; public_key_fingerprint: string | null; known_hosts: string | null; known_hosts_hosts: string | null;
  created_at: string; created_by: number | null; updated_at: string; updated_by: number | null;
}

export interface SshKeyBody { name: string; privateKey: string; knownHosts: string }
export interface HttpsTokenBody { name: string; host: string; username: string; token: string }
export interface ReplaceBody { name?: string; privateKey?: string; knownHosts?: string; token?: string; username?: string }

/**
 * Stored clone credentials (issue #4): SSH keys with pinned host keys, HTTPS tokens bound to their
 * host. The secret is checked, then sealed under ENCRYPTION_KEY with the credential's stream as
 * associated data, and only the sealed form reaches the event; answers never contain it.
 */
export class CredentialService {
  constructor(private readonly db: Database, private readonly commands: CommandHandler, private readonly ids: IdGenerator, private readonly box: SecretBox) {}

  // ---- queries -----------------------------------------------------------------------------

  async list() {
    const rows: CredentialRow[] = await this.db.knex('credentials').orderBy('id');
    const uses = await this.uses();
    return rows.map((r) => this.view(r, uses.get(Number(r.id)) ?? []));
  }

  async get(id: number) {
    const row: CredentialRow | undefined = await this.db.knex('credentials').where({ id }).first();
    if (!row) throw refuse.notFound(`No stored credential ${id}.`);
    return this.view(row, (await this.uses(id)).get(id) ?? []);
  }

  private async uses(id?: number): Promise<Map<number, number[]>> {
    const q = this.db.knex('repositories').whereNotNull('credential_id').select('id', 'credential_id').orderBy('id');
    if (id !== undefined) q.where({ credential_id: id });
    const map = new Map<number, number[]>();
    for (const r of await q as Array<{ id: number; credential_id: number }>) map.set(Number(r.credential_id), [...(map.get(Number(r.credential_id)) ?? []), Number(r.id)]);
    return map;
  }

  private view(r: CredentialRow, repositoryIds: number[]) {
    return {
      id: Number(r.id), kind: r.kind, name: r.name, host: r.host, username: r.username,
      publicKey: r.public_key_fingerprint ? { type: r.public_key_type, fingerprint: r.public_key_fingerprint } : null,
      knownHosts: r.known_hosts, pinnedHosts: r.known_hosts_hosts ? JSON.parse(r.known_hosts_hosts) as string[] : null,
      repositoryIds, createdAt: r.created_at, createdBy: r.created_by === null ? null : Number(r.created_by),
      updatedAt: r.updated_at, updatedBy: r.updated_by === null ? null : Number(r.updated_by),
    };
  }

  // ---- commands ----------------------------------------------------------------------------

  /**
   * "Saving any secret is refused until an ENCRYPTION_KEY is set" (spec 1 §8.3). 409, not 503: the
   * refusal is about this installation's configured state, not a passing outage; a 503 would invite
   * clients and proxies to retry and monitoring to call the service down, when only an operator
   * setting the key (and restarting) changes the answer.
   */
  private requireKey(): void {
    if (!this.box.canSeal) {
      throw refuse.conflict('No ENCRYPTION_KEY is configured, so no secret can be stored: set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE (32 random bytes in base64, e.g. `openssl rand -base64 32`) and restart Vigil. Nothing was stored.');
    }
  }

  async saveSshKey(ctx: RequestContext, body: SshKeyBody) {
    const key = inspectPrivateKey(body.privateKey);
    const pinned = parseKnownHosts(body.knownHosts);
    return this.saveNew(ctx, body.name, key.text, { kind: 'ssh_key', ssh: { publicKey: key.publicKey, knownHosts: pinned.text, hosts: pinned.hosts } });
  }

  async saveHttpsToken(ctx: RequestContext, body: HttpsTokenBody) {
    const host = normaliseTokenHost(body.host);
    const username = validateTokenUser(body.username);
    const token = validateToken(body.token);
    return this.saveNew(ctx, body.name, token, { kind: 'https_token', https: { host, username } });
  }

  /** A new credential of either kind, its secret sealed under the stream it lives in. */
  private async saveNew(ctx: RequestContext, name: string, secret: string, details: Pick<SaveCredential, 'kind' | 'ssh' | 'https'>) {
    this.requireKey();
    const id = await this.ids.next('credential');
    await this.commands.execute(streams.credential(id), credentialDecider, {
      type: 'SaveCredential', id, name, actor: ctx.actor, now: ctx.now, ...details, sealed: this.box.seal(secret, streams.credential(id)),
    }, ctx);
    return this.get(id);
  }

  /** PUT /credentials/{id}: a new secret of the same kind (and optionally name, knownHosts or username). */
  async replace(ctx: RequestContext, id: number, body: ReplaceBody) {
    const { state } = await this.commands.load(streams.credential(id), credentialDecider);
    if (state.status !== 'active') throw refuse.notFound(`No stored credential ${id}.`);
    const stream = streams.credential(id);
    if (state.kind === 'ssh_key') {
      if (body.token !== undefined || body.username !== undefined) throw refuse.invalid(`Credential ${id} is an SSH key: give privateKey (and knownHosts), not token or username.`);
      if (body.privateKey === undefined) throw refuse.invalid(`privateKey is required: PUT replaces the secret of SSH key ${id}.`);
      const key = inspectPrivateKey(body.privateKey);
      const pinned = body.knownHosts === undefined ? undefined : parseKnownHosts(body.knownHosts);
      this.requireKey();
      await this.commands.execute(stream, credentialDecider, {
        type: 'ReplaceCredential', name: body.name, publicKey: key.publicKey, pinned: pinned && { knownHosts: pinned.text, hosts: pinned.hosts },
        sealed: this.box.seal(key.text, stream), actor: ctx.actor, now: ctx.now,
      }, ctx);
    } else {
      if (body.privateKey !== undefined || body.knownHosts !== undefined) throw refuse.invalid(`Credential ${id} is an HTTPS token: give token (and username), not privateKey or knownHosts.`);
      if (body.token === undefined) throw refuse.invalid(`token is required: PUT replaces the secret of HTTPS token ${id}.`);
      const token = validateToken(body.token);
      const username = body.username === undefined ? undefined : validateTokenUser(body.username);
      this.requireKey();
      await this.commands.execute(stream, credentialDecider, {
        type: 'ReplaceCredential', name: body.name, username, sealed: this.box.seal(token, stream), actor: ctx.actor, now: ctx.now,
      }, ctx);
    }
    return this.get(id);
  }

  /** DELETE /credentials/{id}: refused (409, naming them) while repositories name it; they would fail every scan. */
  async remove(ctx: RequestContext, id: number): Promise<void> {
    try {
      await this.commands.execute(streams.credential(id), credentialDecider, { type: 'RemoveCredential', actor: ctx.actor, now: ctx.now }, ctx);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'conflict' || !Array.isArray(error.extensions.repositoryIds)) throw error;
      const ids = error.extensions.repositoryIds as number[];
      const rows: Array<{ id: number; name: string }> = await this.db.knex('repositories').whereIn('id', ids).select('id', 'name').orderBy('id');
      const names = ids.map((r) => `${r}${rows.find((x) => Number(x.id) === r) ? ` (${rows.find((x) => Number(x.id) === r)!.name})` : ''}`);
      throw refuse.conflict(
        `Stored credential ${id} is used by ${ids.length === 1 ? 'repository' : 'repositories'} ${names.join(', ')}; detach it first (PATCH /repositories/{id} with sshKeyId or httpsTokenId null, or name another), then remove it.`,
        undefined, { repositoryIds: ids },
      );
    }
  }
}
