import { TSchema, Type } from '@sinclair/typebox';
import { Response } from 'express';
import { answerPage, IdPageQuery, idPageOf } from '../id-paging';
import { RouteDef } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { width } from '../../../domain/shared/column-widths';
import { Text } from '../text';

const Id = Type.Object({ id: RowId() });
const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const Name = Text({ minLength: 1, max: width('credentials.name') });
const PrivateKey = Text({ minLength: 1, max: 16384, multiline: true });
const KnownHosts = Text({ minLength: 1, max: 65536, multiline: true });
const Token = Text({ minLength: 1, max: 4096 });
const Username = Text({ minLength: 1, max: width('credentials.username') });
/** What an answer shows of a stored credential: never the secret (issue #4, trap 6). */
const Credential = Type.Object({
  id: Type.Integer(), kind: Type.Union([Type.Literal('ssh_key'), Type.Literal('https_token')]), name: Type.String(),
  host: Nullable(Type.String()), username: Nullable(Type.String()),
  publicKey: Nullable(Type.Object({ type: Type.String(), fingerprint: Type.String() })),
  knownHosts: Nullable(Type.String()), pinnedHosts: Nullable(Type.Array(Type.String())),
  repositoryIds: Type.Array(Type.Integer()), createdAt: Type.String(), createdBy: Nullable(Type.Integer()), updatedAt: Type.String(), updatedBy: Nullable(Type.Integer()),
}, { additionalProperties: false });
/**
 * Administrators manage stored credentials, signed in (a key may list them with scope read). Spec 1
 * §5 names no other role; spec 2 §4.1 has administrators import repositories with credentials.
 */
const manage = { sessionOnly: true, roles: ['administrator'] as const, rolesDetail: 'Only an administrator manages stored credentials.' };
const noKey = { description: 'No ENCRYPTION_KEY is configured: nothing is stored (a state of the installation, not an outage)' };

/** Stored clone credentials: SSH keys with pinned host keys, HTTPS tokens bound to a host (issue #4; routes named in README "Credentials"). */
export function credentialRoutes(s: Services): RouteDef[] {
  const created = async (res: Response, view: Promise<unknown>) => { const v = await view; res.status(201); return v; };
  return [
    {
      method: 'get', path: '/credentials', tag: 'Credentials', summary: 'Stored credentials without their secrets (administrators), by id; limit and after page through them (Link)', query: IdPageQuery,
      auth: { scope: 'read', roles: ['administrator'], rolesDetail: 'Only an administrator lists stored credentials.' },
      responses: { 200: { description: 'Credentials, by id', schema: Type.Array(Credential) } },
      handler: async (req, res) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/credentials', page, await s.credentialQueries.page(page.limit, page.after));
      },
    },
    {
      method: 'get', path: '/credentials/{id}', tag: 'Credentials', summary: 'One stored credential without its secret (administrators)', params: Id,
      auth: { scope: 'read', roles: ['administrator'], rolesDetail: 'Only an administrator reads stored credentials.' },
      responses: { 200: { description: 'The credential', schema: Credential }, 404: { description: 'Unknown or removed' } },
      handler: async (req) => s.credentialQueries.get(Number(req.params.id)),
    },
    {
      method: 'post', path: '/credentials/ssh-keys', tag: 'Credentials', summary: 'Store an SSH private key (no passphrase) with the known_hosts lines it pins', auth: manage,
      body: Type.Object({ name: Name, privateKey: PrivateKey, knownHosts: KnownHosts }, { additionalProperties: false }),
      responses: { 201: { description: 'Stored (sealed)', schema: Credential }, 400: { description: 'Not a usable key or known_hosts' }, 409: noKey },
      handler: async (req, res) => created(res, s.credentials.saveSshKey(req.ctx!, req.body)),
    },
    {
      method: 'post', path: '/credentials/https-tokens', tag: 'Credentials', summary: 'Store an HTTPS token bound to one host (and port)', auth: manage,
      body: Type.Object({ name: Name, host: Text({ minLength: 1, max: width('credentials.host') }), username: Username, token: Token }, { additionalProperties: false }),
      responses: { 201: { description: 'Stored (sealed)', schema: Credential }, 400: { description: 'Bad host, user name or token' }, 409: noKey },
      handler: async (req, res) => created(res, s.credentials.saveHttpsToken(req.ctx!, req.body)),
    },
    {
      method: 'put', path: '/credentials/{id}', tag: 'Credentials', params: Id, auth: manage,
      summary: 'Replace the secret: an SSH key takes {privateKey, knownHosts?, name?}, a token {token, username?, name?}; a token\'s host never changes',
      body: Type.Object({
        name: Type.Optional(Name), privateKey: Type.Optional(PrivateKey), knownHosts: Type.Optional(KnownHosts),
        token: Type.Optional(Token), username: Type.Optional(Username),
      }, { additionalProperties: false }),
      responses: { 200: { description: 'Replaced (sealed again under the current key)', schema: Credential }, 404: { description: 'Unknown or removed' }, 409: noKey },
      handler: async (req) => s.credentials.replace(req.ctx!, Number(req.params.id), req.body),
    },
    {
      method: 'delete', path: '/credentials/{id}', tag: 'Credentials', summary: 'Remove a stored credential; 409 naming the repositories while any names it', params: Id, auth: manage,
      responses: { 204: { description: 'Removed' }, 404: { description: 'Unknown or removed' }, 409: { description: 'Repositories still name it (member repositoryIds)' } },
      handler: async (req) => { await s.credentials.remove(req.ctx!, Number(req.params.id)); },
    },
  ];
}
