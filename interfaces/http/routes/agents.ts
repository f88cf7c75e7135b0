import { Type } from '@sinclair/typebox';
import { CredentialsWithheld, MAX_WAIT_SECONDS } from '../../../application/agents/agent-service';
import { MAX_CONCURRENT, MAX_LABEL_LENGTH, MAX_LABELS, MIN_CONCURRENT } from '../../../domain/agents/agent';
import { HttpProblem } from '../problem';
import { RouteDef, takeBody, VigilRequest } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { Text } from '../text';

/** The header carrying an agent's Ed25519 signature of a report (ADR 0017). */
export const SIGNATURE_HEADER = 'vigil-agent-signature';

const Id = Type.Object({ id: RowId() });
const agentKey = { scope: 'agent', keyOnly: true } as const;
const admin = { sessionOnly: true, roles: ['administrator'], rolesDetail: "Managing agents is an administrator's act." } as const;
const Attempt = Type.Integer({ minimum: 1, maximum: 3 });
const AgentView = Type.Object({
  agentId: Type.Integer(), mode: Type.String(), version: Type.String(), labels: Type.Array(Type.String()), maxConcurrent: Type.Integer(),
  signingKeyPinned: Type.Boolean(), sealingKeyVerified: Type.Boolean(), credentialState: Type.String(), attestation: Type.String(),
});
const signatureOf = (req: VigilRequest) => {
  const h = req.headers[SIGNATURE_HEADER];
  return typeof h === 'string' && h.trim() ? h.trim() : undefined;
};

/** The agent protocol and its administration (spec 1 §2.7, §3.3, §4.7; docs/agents.md). */
export function agentRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'post', path: '/agent/hello', tag: 'Agents', summary: 'An agent starts: creates its row at the first hello; answers its limit and credential state', auth: agentKey,
      body: Type.Object({
        version: Text({ max: 64 }), mode: Type.Optional(Type.Union([Type.Literal('local'), Type.Literal('delegated')])),
        labels: Type.Optional(Type.Array(Text({ max: MAX_LABEL_LENGTH }), { maxItems: MAX_LABELS })),
      }, { additionalProperties: false }),
      responses: { 200: { description: 'The agent row', schema: AgentView } },
      handler: async (req) => s.agents.hello(req.ctx!, req.principal!, req.body),
    },
    {
      method: 'post', path: '/agent/sealing-key', tag: 'Agents', summary: 'Announce a fresh X25519 sealing key, signed and stamped (newest wins; older 409; bad signature 403)', auth: agentKey,
      body: Type.Object({ publicKey: Text({ max: 64 }), createdAt: Text({ max: 30 }), signature: Text({ max: 200 }) }, { additionalProperties: false }),
      responses: { 200: { description: 'Accepted', schema: AgentView }, 403: { description: 'Bad signature (audited AGENT_SEALING_KEY_REFUSED)' }, 409: { description: 'Not newer, or no signing key pinned' } },
      handler: async (req) => s.agents.announceSealingKey(req.ctx!, req.principal!, req.body),
    },
    {
      method: 'get', path: '/agent/jobs', tag: 'Agents', summary: `Claim scans up to the agent's free slots; wait holds the request up to ${MAX_WAIT_SECONDS} s (0 default)`, auth: agentKey,
      query: Type.Object({ wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })), slots: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONCURRENT })) }, { additionalProperties: false }),
      responses: { 200: { description: 'Jobs (possibly none) and the current max_concurrent' }, 412: { description: 'Only credential-bearing scans wait and the agent has no verified sealing key' } },
      handler: async (req, res) => {
        const abort = new AbortController();
        res.on('close', () => abort.abort());
        const q = req.query as Record<string, string | undefined>;
        try {
          return await s.agents.poll(req.ctx!, req.principal!, { wait: q.wait === undefined ? 0 : Number(q.wait), slots: q.slots === undefined ? undefined : Number(q.slots) }, abort.signal);
        } catch (error) {
          if (error instanceof CredentialsWithheld) throw new HttpProblem(412, 'Precondition Failed', error.message);
          throw error;
        }
      },
    },
    {
      method: 'post', path: '/agent/jobs/{id}/lease', tag: 'Agents', summary: 'Renew the lease of a running attempt (heartbeat); 409 when it lapsed or is not held', auth: agentKey, params: Id,
      body: Type.Object({ attempt: Attempt }, { additionalProperties: false }),
      responses: { 200: { description: 'Renewed' }, 409: { description: 'Lapsed, taken over, or not held' } },
      handler: async (req) => s.agents.renew(req.ctx!, req.principal!, Number(req.params.id), req.body.attempt),
    },
    {
      method: 'post', path: '/agent/jobs/{id}/result', tag: 'Agents', summary: 'A scan result: artifacts, duration (ISO 8601; seconds accepted); signed when a signing key is pinned', auth: agentKey, params: Id,
      bodyLimit: 'agentResult', rawBody: ['application/json'],
      responses: { 200: { description: 'Accepted' }, 403: { description: 'Unsigned or wrongly signed (audited AGENT_RESULT_REFUSED)' }, 409: { description: 'Stale or repeated' } },
      handler: async (req) => s.agents.result(req.ctx!, req.principal!, Number(req.params.id), takeBody(req), signatureOf(req)),
    },
    {
      method: 'post', path: '/agent/jobs/{id}/failure', tag: 'Agents', summary: 'A failure report: {attempt, reason (one line, ≤ 1,000 characters), kind permanent|transient}', auth: agentKey, params: Id,
      rawBody: ['application/json'],
      responses: { 200: { description: 'Recorded' }, 403: { description: 'Unsigned or wrongly signed (audited AGENT_RESULT_REFUSED)' }, 409: { description: 'Repeated or stale' } },
      handler: async (req) => s.agents.failure(req.ctx!, req.principal!, Number(req.params.id), takeBody(req), signatureOf(req)),
    },
    {
      method: 'get', path: '/admin/agents', tag: 'Agents', summary: 'Agents: status, version, labels, load, credential state', auth: admin,
      responses: { 200: { description: 'Every agent row' } },
      handler: async () => s.agentQueries.list(s.clock.now()),
    },
    {
      method: 'get', path: '/admin/agents/credentialed-backlog', tag: 'Agents', summary: 'Waiting credential-bearing scans no executor can serve', auth: admin,
      responses: { 200: { description: 'The scans, and who serves them when somebody can' } },
      handler: async () => s.agentQueries.credentialedBacklog(s.clock.now(), s.config.scans.embeddedWorker && s.config.encryptionKey !== null),
    },
    {
      method: 'patch', path: '/admin/agents/{id}', tag: 'Agents', summary: `Set max_concurrent (${MIN_CONCURRENT} to ${MAX_CONCURRENT}); applies to the next claim`, auth: admin, params: Id,
      body: Type.Object({ max_concurrent: Type.Integer() }, { additionalProperties: false }),
      responses: { 200: { description: 'The agent', schema: AgentView }, 400: { description: 'Outside 1 to 16' }, 404: { description: 'No such agent' } },
      handler: async (req) => s.agents.setMaxConcurrent(req.ctx!, Number(req.params.id), req.body.max_concurrent),
    },
    {
      method: 'put', path: '/admin/agents/{id}/signing-key', tag: 'Agents', summary: 'Pin a base64 Ed25519 public key, or "generate" (the private half is shown once)', auth: admin, params: Id,
      body: Type.Object({ publicKey: Text({ max: 64 }) }, { additionalProperties: false }),
      responses: { 200: { description: 'Pinned; privateKey only when generated' }, 400: { description: 'Not a key' }, 404: { description: 'No such agent' } },
      handler: async (req) => s.agents.pinSigningKey(req.ctx!, Number(req.params.id), req.body.publicKey),
    },
    {
      method: 'delete', path: '/admin/agents/{id}/signing-key', tag: 'Agents', summary: 'Remove the pinned signing key (results unsigned; credentials withheld)', auth: admin, params: Id,
      responses: { 200: { description: 'Removed' }, 404: { description: 'No such agent' } },
      handler: async (req) => s.agents.removeSigningKey(req.ctx!, Number(req.params.id)),
    },
    {
      method: 'delete', path: '/admin/agents/{id}/sealing-key', tag: 'Agents', summary: 'Withdraw the verified sealing key: credentials withheld until a newer signed one', auth: admin, params: Id,
      responses: { 200: { description: 'Withdrawn' }, 404: { description: 'No such agent' } },
      handler: async (req) => s.agents.deleteSealingKey(req.ctx!, Number(req.params.id)),
    },
  ];
}
