import type { AgentMode } from '../../domain/agents/agent';

/**
 * The Ed25519 and X25519 work of the agent protocol (infrastructure/crypto/agent-keys.ts, tweetnacl):
 * verifying what an agent signed, making a signing pair for `generate`, and sealing a credential to an
 * agent's verified sealing key, bound to what it carries (ADR 0017).
 */
export interface AgentCrypto {
  verify(message: Uint8Array, signatureBase64: string, publicKeyBase64: string): boolean;
  /** A fresh Ed25519 pair: the public half (32 bytes) and the private seed (32 bytes), base64. */
  signingPair(): { publicKey: string; privateKey: string };
  /** A sealed box to `recipientBase64` whose nonce binds `binding`; base64. */
  seal(plaintext: Uint8Array, recipientBase64: string, binding: string): string;
}

/** The agents read model as the protocol needs it (projections/agents/queries.ts). */
export interface AgentRow {
  id: number;
  accountId: number;
  version: string;
  mode: AgentMode;
  labels: string[];
  maxConcurrent: number;
  signingKey: string | null;
  sealingKey: string | null;
  sealingKeyCreatedAt: string | null;
}

export interface AgentReads {
  get(id: number): Promise<AgentRow | null>;
}

/** Last contact per agent row (infrastructure/agents/sql-agent-contacts.ts), written at most every 15 s. */
export interface AgentContacts {
  touch(agentId: number, now: Date, address: string | null): Promise<void>;
}
