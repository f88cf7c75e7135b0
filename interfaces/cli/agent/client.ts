import { createHash } from 'node:crypto';
import nacl from 'tweetnacl';
import { reportBytes, sealingKeyBytes } from '../../../domain/agents/attestation';
import { signDetached } from '../../../infrastructure/crypto/agent-keys';

/** The version this agent announces; credentials are handed to 0.11.0 and later only (S1.4.7-30). */
export const AGENT_VERSION = '0.11.0';
export const SIGNATURE_HEADER = 'Vigil-Agent-Signature';

export interface Answer<T = any> {
  status: number;
  body: T;
}

/** The control plane refused or could not be reached; `status` 0 when nothing answered. */
export class ControlPlaneError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}

/**
 * The agent's side of the protocol (spec 1 §4.7, docs/agents.md): JSON over HTTP with the agent key
 * as bearer; results and failure reports signed over the exact bytes sent (ADR 0017) when the agent
 * has a signing key.
 */
export class ControlPlaneClient {
  agentId: number | null = null;

  constructor(private readonly baseUrl: string, private readonly token: string, private readonly signing: nacl.SignKeyPair | null) {}

  private async call<T>(method: string, path: string, options: { json?: unknown; raw?: Buffer; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, 'user-agent': `vigil-agent/${AGENT_VERSION}`, ...options.headers };
    let body: string | Buffer | undefined;
    if (options.raw) { body = options.raw; headers['content-type'] = 'application/json'; }
    else if (options.json !== undefined) { body = JSON.stringify(options.json); headers['content-type'] = 'application/json'; }
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/api/v1${path}`, { method, headers, body, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ControlPlaneError(0, `The control plane did not answer (${(error as Error)?.message ?? String(error)}).`);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, body: parsed as T };
  }

  async hello(body: { version: string; mode: 'local' | 'delegated'; labels: string[] }): Promise<Answer> {
    const a = await this.call<{ agentId: number }>('POST', '/agent/hello', { json: body });
    if (a.status === 200) this.agentId = a.body.agentId;
    return a;
  }

  /** Announces a sealing key, signed and stamped with its creation time. */
  async announceSealingKey(publicKey: Uint8Array, createdAt: string): Promise<Answer> {
    if (!this.signing || this.agentId === null) throw new Error('a sealing key is announced signed, after hello');
    const pk = Buffer.from(publicKey).toString('base64');
    return this.call('POST', '/agent/sealing-key', { json: { publicKey: pk, createdAt, signature: signDetached(sealingKeyBytes(this.agentId, pk, createdAt), this.signing) } });
  }

  poll(wait: number, slots: number, signal?: AbortSignal): Promise<Answer> {
    return this.call('GET', `/agent/jobs?wait=${wait}&slots=${slots}`, { signal });
  }

  renew(scanId: number, attempt: number): Promise<Answer> {
    return this.call('POST', `/agent/jobs/${scanId}/lease`, { json: { attempt } });
  }

  result(scanId: number, attempt: number, body: Record<string, unknown>): Promise<Answer> {
    return this.report('result', scanId, attempt, Buffer.from(JSON.stringify({ ...body, attempt }), 'utf8'));
  }

  failure(scanId: number, attempt: number, reason: string, kind: 'permanent' | 'transient'): Promise<Answer> {
    return this.report('failure', scanId, attempt, Buffer.from(JSON.stringify({ attempt, reason, kind }), 'utf8'));
  }

  /** The exact bytes sent are the bytes signed (their SHA-256 in the canonical text). */
  private report(kind: 'result' | 'failure', scanId: number, attempt: number, raw: Buffer): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.signing && this.agentId !== null) {
      const digest = createHash('sha256').update(raw).digest('hex');
      headers[SIGNATURE_HEADER] = signDetached(reportBytes(kind, this.agentId, scanId, attempt, digest), this.signing);
    }
    return this.call('POST', `/agent/jobs/${scanId}/${kind}`, { raw, headers });
  }
}
