/**
 * The SIEM signatures of spec 2 §6, as a table (prefix VGL-SEC-, CONVENTIONS). The identifiers are
 * a contract (spec 2 §9): a number never changes meaning. VGL-SEC-001 and -004 are retired and
 * absent. `emitted` says whether this build of Vigil has the capability that emits it; a later
 * capability flips its row and adds its mapping in event-signals.ts.
 */
export interface SignatureDefinition {
  readonly name: string;
  /** CEF severity 0..10; VGL-SEC-030 varies with the late issue's severity (its row holds the old fixed 6). */
  readonly severity: number;
  readonly emitted: boolean;
}

export const SIGNATURES = {
  'VGL-SEC-002': { name: 'Actively exploited vulnerability detected', severity: 10, emitted: true },
  'VGL-SEC-003': { name: 'Security gate refused a build', severity: 7, emitted: true },
  'VGL-SEC-005': { name: 'Finding settled by triage', severity: 5, emitted: true },
  'VGL-SEC-006': { name: 'MFA backup code consumed', severity: 6, emitted: true },
  'VGL-SEC-007': { name: 'Sign-in failure ceiling reached', severity: 7, emitted: true },
  'VGL-SEC-008': { name: 'MFA failure ceiling reached', severity: 7, emitted: true },
  'VGL-SEC-009': { name: 'Bearer token failure ceiling reached', severity: 7, emitted: true },
  'VGL-SEC-010': { name: 'Account privileges or credentials changed', severity: 6, emitted: true },
  'VGL-SEC-011': { name: 'Team access grant changed', severity: 6, emitted: true },
  'VGL-SEC-012': { name: 'API key issued', severity: 5, emitted: true },
  'VGL-SEC-013': { name: 'API key revoked', severity: 4, emitted: true },
  'VGL-SEC-014': { name: 'Agent declared or its credentials changed', severity: 6, emitted: true },
  'VGL-SEC-015': { name: 'Agent result refused: attestation did not verify', severity: 8, emitted: true },
  'VGL-SEC-016': { name: 'Four-eyes triage request approved', severity: 5, emitted: true },
  'VGL-SEC-017': { name: 'Four-eyes triage request refused', severity: 4, emitted: true },
  'VGL-SEC-018': { name: 'Audit log integrity verification failed', severity: 10, emitted: true },
  'VGL-SEC-019': { name: 'Security-relevant setting changed', severity: 6, emitted: true },
  'VGL-SEC-020': { name: 'Agent sealing key refused', severity: 8, emitted: true },
  'VGL-SEC-021': { name: 'Analysis plugin registered, changed or activated', severity: 6, emitted: false },
  'VGL-SEC-022': { name: 'SARIF import source declared or changed', severity: 6, emitted: true },
  'VGL-SEC-023': { name: 'SARIF import refused', severity: 5, emitted: true },
  'VGL-SEC-024': { name: 'Checklist template version published or retired', severity: 6, emitted: false },
  'VGL-SEC-025': { name: 'Checklist signed off', severity: 5, emitted: false },
  'VGL-SEC-026': { name: 'Checklist sign-off refused or returned', severity: 5, emitted: false },
  'VGL-SEC-027': { name: 'Report import refused', severity: 5, emitted: true },
  'VGL-SEC-028': { name: 'SIEM export switched off or redirected', severity: 7, emitted: true },
  'VGL-SEC-029': { name: 'Secret leaked in source code', severity: 8, emitted: true },
  'VGL-SEC-030': { name: 'Remediation deadline passed', severity: 6, emitted: true },
  'VGL-SEC-031': { name: 'Report plugin registered, changed, approved, activated or withdrawn', severity: 6, emitted: false },
  'VGL-SEC-032': { name: 'Project export left the platform', severity: 4, emitted: true },
  'VGL-SEC-033': { name: 'Report plugin refused, or its output refused', severity: 6, emitted: false },
  'VGL-SEC-034': { name: 'Forge connection created, token or trust replaced, or deleted', severity: 6, emitted: false },
  'VGL-SEC-035': { name: 'Repositories imported from a forge', severity: 5, emitted: false },
  'VGL-SEC-036': { name: 'Forge connection refused', severity: 5, emitted: false },
  'VGL-SEC-037': { name: 'A tracker contradicts a settled triage decision', severity: 4, emitted: true },
  'VGL-SEC-999': { name: 'SIEM connector health check', severity: 1, emitted: true },
} as const satisfies Record<string, SignatureDefinition>;

export type Signature = keyof typeof SIGNATURES;

/** VGL-SEC-030's severity from the late issue's (spec 2 §6, S2.6-62). */
export const DEADLINE_SEVERITY: Record<'critical' | 'high' | 'medium' | 'low', number> = { critical: 8, high: 7, medium: 5, low: 3 };

/** The configuration's minimum severity and the lowest CEF severity it lets through (spec 2 §6, S2.6-11..14). */
export const MINIMUM_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type MinimumSeverity = (typeof MINIMUM_SEVERITIES)[number];
export const LOWEST_PASSING: Record<MinimumSeverity, number> = { critical: 9, high: 7, medium: 4, low: 0 };

export function passesMinimum(severity: number, minimum: MinimumSeverity): boolean {
  return severity >= LOWEST_PASSING[minimum];
}

/**
 * Syslog severity (RFC 5424 numbers) of a CEF severity (spec 2 §4.5, S2.4.5-11): very high (9-10)
 * critical, high (7-8) error, medium (4-6) warning, low (0-3) notice. The bands are CEF's own.
 */
export type CefBand = 'very_high' | 'high' | 'medium' | 'low';
export const SYSLOG_SEVERITY: Record<CefBand, { keyword: string; code: number }> = {
  very_high: { keyword: 'crit', code: 2 },
  high: { keyword: 'err', code: 3 },
  medium: { keyword: 'warning', code: 4 },
  low: { keyword: 'notice', code: 5 },
};

export function bandOf(severity: number): CefBand {
  if (severity >= 9) return 'very_high';
  if (severity >= 7) return 'high';
  if (severity >= 4) return 'medium';
  return 'low';
}
