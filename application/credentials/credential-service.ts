import { credentialDecider, CredentialKind, inspectPrivateKey, normaliseTokenHost, parseKnownHosts, ReplaceCredential, SaveCredential, validateToken, validateTokenUser } from '../../domain/credentials';
import { DomainError, refuse } from '../../domain/shared/decider';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { SecretBox } from '../ports/secret-box';
import { streams } from '../../domain/shared/streams';
import { CredentialReads } from './ports';

export interface SshKeyBody { name: string; privateKey: string; knownHosts: string }
export interface HttpsTokenBody { name: string; host: string; username: string; token: string }
export interface ReplaceBody { name?: string; privateKey?: string; knownHosts?: string; token?: string; username?: string }

/**
 * Stored clone credentials (issue #4): SSH keys with pinned host keys, HTTPS tokens bound to their
 * host. The secret is checked, then sealed under ENCRYPTION_KEY with the credential's stream as
 * associated data, and only the sealed form reaches the event; answers never contain it.
 * Queries: projections/credentials/queries.ts.
 */
export class CredentialService {
  constructor(private readonly reads: CredentialReads, private readonly commands: CommandHandler, private readonly ids: IdGenerator, private readonly box: SecretBox) {}

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
    return this.reads.get(id);
  }

  /** PUT /credentials/{id}: a new secret of the same kind (and optionally name, knownHosts or username). */
  async replace(ctx: RequestContext, id: number, body: ReplaceBody) {
    const stream = streams.credential(id);
    await this.commands.transact(ctx, async (attempt) => {
      const { state, revision } = await attempt.load(stream, credentialDecider);
      if (state.status !== 'active') throw refuse.notFound(`No stored credential ${id}.`);
      attempt.record(stream, credentialDecider.decide(this.replacement(id, state.kind, body, ctx), state), revision ?? 'no_stream');
    });
    return this.reads.get(id);
  }

  /** The ReplaceCredential command for a credential of `kind`: the new secret checked, then sealed under the stream. */
  private replacement(id: number, kind: CredentialKind, body: ReplaceBody, ctx: RequestContext): ReplaceCredential {
    const stream = streams.credential(id);
    if (kind === 'ssh_key') {
      if (body.token !== undefined || body.username !== undefined) throw refuse.invalid(`Credential ${id} is an SSH key: give privateKey (and knownHosts), not token or username.`);
      if (body.privateKey === undefined) throw refuse.invalid(`privateKey is required: PUT replaces the secret of SSH key ${id}.`);
      const key = inspectPrivateKey(body.privateKey);
      const pinned = body.knownHosts === undefined ? undefined : parseKnownHosts(body.knownHosts);
      this.requireKey();
      return {
        type: 'ReplaceCredential', name: body.name, publicKey: key.publicKey, pinned: pinned && { knownHosts: pinned.text, hosts: pinned.hosts },
        sealed: this.box.seal(key.text, stream), actor: ctx.actor, now: ctx.now,
      };
    }
    if (body.privateKey !== undefined || body.knownHosts !== undefined) throw refuse.invalid(`Credential ${id} is an HTTPS token: give token (and username), not privateKey or knownHosts.`);
    if (body.token === undefined) throw refuse.invalid(`token is required: PUT replaces the secret of HTTPS token ${id}.`);
    const token = validateToken(body.token);
    const username = body.username === undefined ? undefined : validateTokenUser(body.username);
    this.requireKey();
    return { type: 'ReplaceCredential', name: body.name, username, sealed: this.box.seal(token, stream), actor: ctx.actor, now: ctx.now };
  }

  /** DELETE /credentials/{id}: refused (409, naming them) while repositories name it; they would fail every scan. */
  async remove(ctx: RequestContext, id: number): Promise<void> {
    try {
      await this.commands.execute(streams.credential(id), credentialDecider, { type: 'RemoveCredential', actor: ctx.actor, now: ctx.now }, ctx);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'conflict' || !Array.isArray(error.extensions.repositoryIds)) throw error;
      const ids = error.extensions.repositoryIds as number[];
      const rows = await this.reads.repositoryNames(ids);
      const names = ids.map((r) => `${r}${rows.find((x) => Number(x.id) === r) ? ` (${rows.find((x) => Number(x.id) === r)!.name})` : ''}`);
      throw refuse.conflict(
        `Stored credential ${id} is used by ${ids.length === 1 ? 'repository' : 'repositories'} ${names.join(', ')}; detach it first (PATCH /repositories/{id} with sshKeyId or httpsTokenId null, or name another), then remove it.`,
        undefined, { repositoryIds: ids },
      );
    }
  }
}
