/**
 * Spec 1 §3.3 "Agent credential state", held beside the code: the rows a screen reads, and what each
 * administrator or agent gesture does to the sealing key's verification. decide (agent.ts) consults
 * SEALING_KEY_EFFECT; the spec iterates both tables.
 */

/** The two rows about credentials and the two about results (§3.3 "Rows read"). */
export const CREDENTIAL_ROWS = {
  sealed: 'Sealed end to end (verified sealing key)',
  withheld: 'No verified sealing key: credentials withheld',
} as const;
export const ATTESTATION_ROWS = {
  attested: 'Results attested',
  unsigned: 'Results unsigned',
} as const;

export type CredentialRow = keyof typeof CREDENTIAL_ROWS;
export type AttestationRow = keyof typeof ATTESTATION_ROWS;

/** What a gesture does to the accepted sealing key: keep it, or withdraw it (credentials withheld until a newer signed key). */
export type SealingEffect = 'keeps' | 'withdraws' | 'verifies';

export const SEALING_KEY_EFFECT: Readonly<Record<'PinSigningKey' | 'RemoveSigningKey' | 'DeleteSealingKey' | 'AnnounceSealingKey' | 'SetMaxConcurrent' | 'Hello', SealingEffect>> = {
  // "Pinning, replacing or removing the signing key ... return a delegated agent to credentials withheld" (S1.3.3-05/06)
  PinSigningKey: 'withdraws',
  RemoveSigningKey: 'withdraws',
  // "... and DELETE of the sealing key" (S1.3.3-07)
  DeleteSealingKey: 'withdraws',
  // "until it announces a newer signed sealing key (at its next start or claim)" (S1.3.3-08)
  AnnounceSealingKey: 'verifies',
  SetMaxConcurrent: 'keeps',
  Hello: 'keeps',
};

export interface CredentialFacts {
  readonly mode: 'local' | 'delegated';
  readonly signingKeyPinned: boolean;
  readonly sealingKeyVerified: boolean;
}

/** The credential row: sealed only with a pinned signing key and a sealing key verified under it. */
export function credentialRow(f: CredentialFacts): CredentialRow {
  return f.signingKeyPinned && f.sealingKeyVerified ? 'sealed' : 'withheld';
}

export function attestationRow(f: Pick<CredentialFacts, 'signingKeyPinned'>): AttestationRow {
  return f.signingKeyPinned ? 'attested' : 'unsigned';
}
