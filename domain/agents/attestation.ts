/**
 * What an agent signs with its Ed25519 private half (ADR 0017): canonical bytes, UTF-8, lines joined
 * by "\n", no trailing newline. A second implementation reproduces them from this file alone.
 *
 *   result:       vigil-agent-result/v1   \n agentId \n scanId \n attempt \n sha256hex(request body bytes)
 *   failure:      vigil-agent-failure/v1  \n agentId \n scanId \n attempt \n sha256hex(request body bytes)
 *   sealing key:  vigil-agent-sealing-key/v1 \n agentId \n base64(X25519 public key) \n createdAt (ISO 8601 UTC, as sent)
 *
 * The body hash is of the exact bytes sent (the control plane hashes what it read, before parsing), so
 * no JSON canonicalisation is needed. Numbers are written in decimal without sign or leading zeros.
 */
export type SignedKind = 'result' | 'failure';

export function reportBytes(kind: SignedKind, agentId: number, scanId: number, attempt: number, bodySha256Hex: string): Uint8Array {
  return Buffer.from([`vigil-agent-${kind}/v1`, String(agentId), String(scanId), String(attempt), bodySha256Hex.toLowerCase()].join('\n'), 'utf8');
}

export function sealingKeyBytes(agentId: number, publicKeyBase64: string, createdAt: string): Uint8Array {
  return Buffer.from(['vigil-agent-sealing-key/v1', String(agentId), publicKeyBase64, createdAt].join('\n'), 'utf8');
}

/**
 * What a sealed credential is bound to (S1.4.7-28): the text mixed into the sealed box's nonce, so a
 * box opened under any other binding fails. A deployment key is bound as such; an HTTPS token to its
 * host and user name; both to the scan attempt that carries them.
 */
export function credentialBinding(scanId: number, attempt: number, what: { kind: 'ssh_key' } | { kind: 'https_token'; host: string; username: string }): string {
  const carried = what.kind === 'ssh_key' ? 'deploy-key' : `https-token\n${what.host.toLowerCase()}\n${what.username}`;
  return ['vigil-sealed-credential/v1', String(scanId), String(attempt), carried].join('\n');
}
