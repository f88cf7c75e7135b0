import type { SiemSignal } from './cef';
import { operationOf } from '../audit/operations';
import { DEADLINE_SEVERITY, SIGNATURES, Signature } from './signatures';

/**
 * Which event of the log signals what to the SIEM (spec 2 §6, one row per event type): the
 * signature, the outcome, the audit operation (act), the target and the message. The outbox
 * projection asks `signalOf` for every event; the answer is decided from the event alone (its
 * data, stream and metadata), so a rebuild queues the same rows. Who (suser), from where (src)
 * and with what (cs2) come from the event's metadata; the externalId is the event's id.
 */
export type SignalDraft = Pick<SiemSignal, 'signature' | 'severity' | 'outcome' | 'act'> & Partial<Pick<SiemSignal, 'target' | 'identifier' | 'component' | 'msg'>>;

type Data = Record<string, any>;
type Rule = (data: Data, stream: string) => SignalDraft | null;

const draft = (signature: Signature, outcome: SiemSignal['outcome'], act: string, extra: Partial<SignalDraft> = {}): SignalDraft =>
  ({ signature, severity: SIGNATURES[signature].severity, outcome, act, ...extra });

/** Settings whose change is security-relevant (VGL-SEC-019): four-eyes, private-URL switches, tracker destination. */
export const SECURITY_SETTINGS: ReadonlySet<string> = new Set([
  'triage_four_eyes', 'notification_allow_private_url', 'siem_allow_private_destination', 'ticket_project', 'ticket_user',
]);

const SETTLING = new Set(['not_affected', 'will_not_fix', 'fixed']);

/** A display name alone is no privilege or credential: not signalled. */
const account: Rule = (d) => {
  const msg = accountChange(d);
  return msg === '' ? null : draft('VGL-SEC-010', 'success', 'ACCOUNT_CHANGED', { target: `account:${d.id}`, msg });
};
const team: Rule = (d) => draft('VGL-SEC-011', 'success', 'TEAM_ACCESS_CHANGED', {
  target: `team:${d.teamId}`, msg: d.accountId !== undefined ? `member account:${d.accountId}` : `grant ${d.kind}:${d.targetId}`,
});
const source: Rule = (d) => draft('VGL-SEC-022', 'success', 'SARIF_SOURCE_CHANGED', { target: `source:${d.slug}` });
const credential: Rule = (d) => draft('VGL-SEC-019', 'success', 'CREDENTIAL_CHANGED', { target: `credential:${d.id}`, msg: 'stored credential' });
const siemConfig: Rule = () => draft('VGL-SEC-019', 'success', 'SIEM_CONFIGURED', { target: 'siem', msg: 'SIEM export' });
/** A target filed in a project, or moved to another, changes who sees it (VGL-SEC-011). */
const filed: Rule = (d, stream) => (d.projectId === null || d.projectId === undefined ? null
  : draft('VGL-SEC-011', 'success', 'TARGET_FILED', { target: stream, msg: `filed in project:${d.projectId}` }));

/** An agent declared or its keys changed (VGL-SEC-014); act is the audit operation of the event. */
const agent = (type: string, what: (d: Data) => string): Rule => (d) => draft('VGL-SEC-014', 'success', operationOf(type), { target: `agent:${d.id}`, msg: what(d) });
/** A second-factor change of an account (VGL-SEC-010, "second factor"). */
const secondFactor = (type: string, what: string): Rule => (d) => draft('VGL-SEC-010', 'success', operationOf(type), { target: `account:${d.accountId}`, msg: what });
const HIGH_OR_CRITICAL = new Set(['high', 'critical']);

function accountChange(d: Data): string {
  if (d.passwordHash !== undefined && d.reason) return `password ${d.reason === 'reset' ? 'reset' : 'changed'}`;
  if (d.username !== undefined) return `created with roles ${(d.roles ?? []).join(',')}`;
  const parts: string[] = [];
  if (d.roles !== undefined) parts.push(`roles ${d.roles.join(',')}`);
  if (d.active !== undefined) parts.push(d.active ? 'activated' : 'deactivated');
  return parts.join('; ');
}

export const EVENT_SIGNALS: Record<string, Rule> = {
  IssueKevListed: (d) => draft('VGL-SEC-002', 'detected', 'KEV_LISTED', {
    target: `${d.targetKind}:${d.targetId}`, identifier: d.cve, component: d.packageName ?? null, msg: `issue ${d.id} (${d.severity})`,
  }),
  GateVerdictGiven: (d) => (d.passed ? null : draft('VGL-SEC-003', 'failure', 'GATE_EVALUATED', {
    target: `${d.targetKind}:${d.targetId}`, msg: `SECURITY_GATE_FAILED verdict ${d.id}: ${d.violationCount} violation(s)`,
  })),
  TriageDecided: (d, stream) => (SETTLING.has(d.status) ? draft('VGL-SEC-005', 'success', 'TRIAGE_DECIDED', { target: stream, msg: `${d.previousStatus} -> ${d.status}` }) : null),
  TriageApproved: (d, stream) => draft('VGL-SEC-016', 'success', 'TRIAGE_APPROVED', { target: stream, msg: `approved ${d.status}` }),
  TriageRefused: (d, stream) => draft('VGL-SEC-017', 'success', 'TRIAGE_REFUSED', { target: stream, msg: `refused ${d.requestedStatus}, now ${d.status}` }),
  TriageContradictedByTracker: (d, stream) => draft('VGL-SEC-037', 'detected', 'TRIAGE_CONTRADICTED_BY_TRACKER', {
    target: stream, msg: `${d.integration} proposes ${d.proposedStatus} against ${d.status}`,
  }),
  SignInFailureCeilingReached: (d) => draft('VGL-SEC-007', 'failure', 'SIGN_IN_THROTTLED', { target: d.scope && d.subject ? `${d.scope}:${d.subject}` : null, msg: `${d.failures} failures` }),
  BearerFailureCeilingReached: (d) => draft('VGL-SEC-009', 'failure', 'BEARER_THROTTLED', { target: d.address ? `address:${d.address}` : null }),
  AccountCreated: account,
  AccountUpdated: account,
  AccountPasswordChanged: account,
  TeamMemberAdded: team,
  TeamMemberRemoved: team,
  TeamGrantAdded: team,
  TeamGrantRemoved: team,
  RepositoryRegistered: filed,
  ContainerImageRegistered: filed,
  // A deleted target takes the teams' grants on it along (a holder of grants deleted, VGL-SEC-011).
  TargetDeleted: (d, stream) => draft('VGL-SEC-011', 'success', 'TARGET_DELETED', { target: stream, msg: `${d.kind} ${d.id} deleted with the grants naming it` }),
  TargetUpdated: (d, stream) => (d.changes && Object.hasOwn(d.changes, 'projectId') ? filed({ projectId: d.changes.projectId ?? 'none' }, stream) : null),
  ApiKeyIssued: (d) => draft('VGL-SEC-012', 'success', 'API_KEY_ISSUED', { target: `api-key:${d.id}`, msg: `for account:${d.accountId}, scopes ${(d.scopes ?? []).join(',')}` }),
  ApiKeyRevoked: (d) => draft('VGL-SEC-013', 'success', 'API_KEY_REVOKED', { target: `api-key:${d.id}`, msg: d.reason ? `reason ${d.reason}` : null }),
  SettingChanged: (d) => (SECURITY_SETTINGS.has(d.name) ? draft('VGL-SEC-019', 'success', 'SETTING_UPDATED', { target: `setting:${d.name}`, msg: `${d.name} = ${JSON.stringify(d.value)}` }) : null),
  CredentialSaved: credential,
  CredentialReplaced: credential,
  CredentialRemoved: credential,
  SiemExportConfigured: siemConfig,
  SourceDeclared: source,
  SourceRedeclared: source,
  SourceDisabled: source,
  SourceEnabled: source,
  SourceRemoved: source,
  SarifImportRefused: (d) => draft('VGL-SEC-023', 'failure', 'SARIF_IMPORT_REFUSED', { target: `repository:${d.repositoryId}`, msg: d.reason }),
  ReportImportRefused: (d) => draft('VGL-SEC-027', 'failure', 'REPORT_IMPORT_REFUSED', { target: `repository:${d.repositoryId}`, msg: `${d.kind}: ${d.reason}` }),
  // Issue #14: the second factor, single sign-on and SCIM. Accounts SCIM or a first sign-on create
  // and SCIM's activation changes signal through AccountCreated/AccountUpdated; team members through
  // TeamMember*; what is left is binding an existing account to the provider.
  SecondFactorEnrolled: secondFactor('SecondFactorEnrolled', 'second factor enrolled'),
  SecondFactorReset: secondFactor('SecondFactorReset', 'second factor reset'),
  SecondFactorBackupCodeConsumed: (d) => draft('VGL-SEC-006', 'success', operationOf('SecondFactorBackupCodeConsumed'), { target: `account:${d.accountId}`, msg: `${d.left} backup codes left` }),
  SecondFactorChallengeDestroyed: (d) => draft('VGL-SEC-008', 'failure', operationOf('SecondFactorChallengeDestroyed'), { target: `account:${d.accountId}`, msg: `challenge destroyed after ${d.failures} wrong codes` }),
  SsoSubjectBound: (d) => (d.via === 'sign_on_created' ? null
    : draft('VGL-SEC-010', 'success', operationOf('SsoSubjectBound'), { target: `account:${d.accountId}`, msg: `bound to an identity-provider subject (${d.via})` })),
  ScimUserProvisioned: (d) => (d.via !== 'bound' ? null
    : draft('VGL-SEC-010', 'success', operationOf('ScimUserProvisioned'), { target: `account:${d.accountId}`, msg: 'bound to a SCIM user' })),
  // Agents (spec 1 §4.7): declared (its first hello), signing key pinned or removed, sealing key reset.
  AgentRegistered: agent('AgentRegistered', (d) => `declared by account:${d.accountId}, mode ${d.mode}`),
  AgentSigningKeyPinned: agent('AgentSigningKeyPinned', (d) => `signing key pinned${d.sealingKeyWithdrawn ? ', sealing key withdrawn' : ''}`),
  AgentSigningKeyRemoved: agent('AgentSigningKeyRemoved', (d) => `signing key removed${d.sealingKeyWithdrawn ? ', sealing key withdrawn' : ''}`),
  AgentSealingKeyWithdrawn: agent('AgentSealingKeyWithdrawn', () => 'sealing key reset'),
  AgentResultRefused: (d) => draft('VGL-SEC-015', 'failure', 'AGENT_RESULT_REFUSED', { target: `agent:${d.agentId}`, msg: `scan ${d.scanId} ${d.report}: ${d.reason}` }),
  AgentSealingKeyRefused: (d) => draft('VGL-SEC-020', 'failure', 'AGENT_SEALING_KEY_REFUSED', { target: `agent:${d.agentId}`, msg: d.reason }),
  // A high or critical leaked secret, when it becomes an issue (once per issue: its stream starts
  // with it). The finding's rule and place only: never its title, line or any part of the value.
  IssueDetected: (d) => (d.type !== 'secret' || !HIGH_OR_CRITICAL.has(d.severity) ? null
    : draft('VGL-SEC-029', 'detected', 'SECRET_DETECTED', { target: `${d.targetKind}:${d.targetId}`, msg: `issue ${d.id} (${d.severity}): ${d.ruleId} in ${d.path || '(no path)'}` })),
  // The hourly turn found an unsettled open issue past its remediation deadline; severity from the issue's.
  RemediationDeadlinePassed: (d) => draft('VGL-SEC-030', 'detected', 'REMEDIATION_DEADLINE_PASSED', {
    severity: DEADLINE_SEVERITY[d.severity as keyof typeof DEADLINE_SEVERITY] ?? SIGNATURES['VGL-SEC-030'].severity,
    target: `${d.targetKind}:${d.targetId}`, msg: `issue ${d.id} (${d.severity}): deadline ${d.deadline} passed`,
  }),
  // An export left the platform: the message the event carries, its SHA-256 first.
  ProjectExported: (d) => draft('VGL-SEC-032', 'success', 'PROJECT_EXPORTED', { target: `project:${d.projectId}`, msg: d.siem?.message ?? `${d.sha256} project ${d.projectId}` }),
  AuditVerificationFailed: (d) => draft('VGL-SEC-018', 'failure', 'AUDIT_VERIFIED', { target: 'audit-log', msg: `entry ${d.brokenAt}: ${d.reason}` }),
};

/** The event types that may signal: the outbox projection handles these only. */
export const SIGNALLING_TYPES: ReadonlySet<string> = new Set(Object.keys(EVENT_SIGNALS));

export function signalOf(type: string, data: unknown, stream: string): SignalDraft | null {
  const rule = Object.hasOwn(EVENT_SIGNALS, type) ? EVENT_SIGNALS[type] : undefined;
  return rule ? rule((data ?? {}) as Data, stream) : null;
}
