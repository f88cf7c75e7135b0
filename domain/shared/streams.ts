import type { TargetKind } from './target-kind';

/**
 * Every stream of the event log, by kind: one function (or name) per kind, used by every writer
 * and reader, so that an auditor (and `GET /audit-log?stream=`) can tell what a stream holds from
 * its name, and no two contexts ever spell one kind two ways.
 */
export const streams = {
  // identity
  account: (id: number) => `account-${id}`,
  /** The reservation of a user name (case-insensitive), so that two accounts never share one. */
  username: (username: string) => `username-${username.toLowerCase()}`,
  apiKey: (id: number) => `api-key-${id}`,
  sessions: (accountId: number) => `sessions-${accountId}`,
  team: (id: number) => `team-${id}`,
  bootstrap: 'bootstrap',
  signInRefusals: 'sign-in-refusals',
  signInThrottle: 'sign-in-throttle',
  bearerFailures: 'bearer-failures',
  settings: 'settings',
  // identity: single sign-on, second factor, SCIM (issue #14)
  /** A provider subject's binding; the key is the SHA-256 of issuer and subject. */
  ssoSubject: (key: string) => `sso-subject-${key}`,
  ssoAccount: (accountId: number) => `sso-account-${accountId}`,
  ssoRefusals: 'sso-refusals',
  secondFactor: (accountId: number) => `second-factor-${accountId}`,
  scimToken: 'scim-token',
  scimUser: (accountId: number) => `scim-user-${accountId}`,
  scimGroup: (teamId: number) => `scim-group-${teamId}`,
  /** Data keys wrapped by the external key custody (issue #14). */
  dataKeys: 'data-keys',
  // targets
  target: (kind: TargetKind, id: number) => `${kind}-${id}`,
  /** The reservation of a target's (identity, branch, sub-path) key (trap 4). */
  targetKey: (key: string) => `target-key-${key}`,
  credential: (id: number) => `credential-${id}`,
  solution: (id: number) => `solution-${id}`,
  project: (id: number) => `project-${id}`,
  // backlog and imports
  issue: (key: string) => `issue-${key}`,
  /** The passing of an issue's remediation deadline, recorded once (VGL-SEC-030; application/triage/deadline-watch.ts). */
  remediationDeadline: (key: string) => `remediation-deadline-${key}`,
  source: (slug: string) => `source-${slug.toLowerCase()}`,
  /** The reservation of an integration key by one declared source. */
  sourceKey: (apiKeyId: number) => `source-key-${apiKeyId}`,
  importRefusals: 'import-refusals',
  sarifImport: (id: number) => `sarif-import-${id}`,
  coverageImport: (id: number) => `coverage-import-${id}`,
  testReportImport: (id: number) => `test-report-import-${id}`,
  buildSbomImport: (id: number) => `build-sbom-import-${id}`,
  // scans
  scan: (id: number) => `scan-${id}`,
  scanWaiting: (kind: TargetKind, id: number) => `scan-waiting-${kind}-${id}`,
  // agents: one stream per agent row (its id is the agent key's id), and the refusals they met
  agent: (id: number) => `agent-${id}`,
  agentRefusals: 'agent-refusals',
  agentReports: 'agent-reports',
  // gate, scorecards, enrichment
  gateVerdict: (id: number) => `gate-verdict-${id}`,
  scorecardBadge: (id: number) => `scorecard-badge-${id}`,
  feed: (feed: string) => `feed-${feed}`,
  kevListed: (issueKey: string) => `kev-listed-${issueKey}`,
  // SIEM export and audit
  siemConfig: 'siem-config',
  siemTests: 'siem-tests',
  auditVerification: 'audit-verification',
  // exports (issue #11)
  /** The platform signing key, sealed: appended once with no_stream, so instances racing keep one key. */
  platformSigningKey: 'platform-signing-key',
  projectExports: (projectId: number) => `project-exports-${projectId}`,
  vexIngest: (id: string) => `vex-ingest-${id}`,
  evidenceBundle: (id: number) => `evidence-bundle-${id}`,
} as const;

/** A scan's own stream (other kinds start with "scan-" too: scan-waiting-...). */
export const SCAN_STREAM = /^scan-(\d+)$/;
