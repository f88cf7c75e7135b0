import semver from 'semver';
import type { AgentRow } from './ports';

/** Agents older than this are handed no credential (S1.4.7-30); a pre-release of 0.11.0 is older. */
export const CREDENTIAL_MIN_VERSION = '0.11.0';

export function versionHoldsCredentials(version: string): boolean {
  const v = semver.valid(version);
  return v !== null && semver.gte(v, CREDENTIAL_MIN_VERSION);
}

/** A delegated agent may hold a credential: signing key pinned, sealing key verified, 0.11.0 or later (S1.4.7-25, -30). */
export function agentHoldsCredentials(a: Pick<AgentRow, 'mode' | 'signingKey' | 'sealingKey' | 'version'>): boolean {
  return a.mode === 'delegated' && a.signingKey !== null && a.sealingKey !== null && versionHoldsCredentials(a.version);
}
