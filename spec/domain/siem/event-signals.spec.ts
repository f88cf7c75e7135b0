import { expect } from 'chai';
import { EVENT_SIGNALS, signalOf } from '../../../domain/siem/event-signals';
import { SIGNATURES } from '../../../domain/siem/signatures';

/** Which event signals what (spec 2 §6 table), one row per signature Vigil emits from the log. */
describe('SIEM signals from events (spec 2 §6)', () => {
  const sig = (type: string, data: Record<string, unknown>, stream = 's') => signalOf(type, data, stream);

  it('[S2.6-30] VGL-SEC-002 from IssueKevListed, severity 10, detected, with the CVE (cs3) and the package (cs4)', () => {
    expect(sig('IssueKevListed', { id: 7, cve: 'CVE-2024-3094', targetKind: 'repository', targetId: 2, severity: 'high', packageName: 'xz-utils' }))
      .to.deep.include({ signature: 'VGL-SEC-002', severity: 10, outcome: 'detected', identifier: 'CVE-2024-3094', component: 'xz-utils', target: 'repository:2' });
  });

  it('[S2.6-34] [S2.6-36] VGL-SEC-007 and -009 from the sign-in and bearer ceilings, severity 7, failure', () => {
    expect(sig('SignInFailureCeilingReached', { scope: 'account', subject: 'alice', failures: 10 })).to.include({ signature: 'VGL-SEC-007', severity: 7, outcome: 'failure' });
    expect(sig('BearerFailureCeilingReached', { address: '203.0.113.0' })).to.include({ signature: 'VGL-SEC-009', severity: 7, outcome: 'failure' });
  });

  it('[S2.6-37] VGL-SEC-010 for account created, roles, activation and password; not for a display name alone', () => {
    expect(sig('AccountCreated', { id: 2, username: 'a', roles: ['writer'] })?.signature).to.equal('VGL-SEC-010');
    expect(sig('AccountUpdated', { id: 2, active: false })?.msg).to.equal('deactivated');
    expect(sig('AccountPasswordChanged', { id: 2, passwordHash: 'x', reason: 'reset' })?.msg).to.equal('password reset');
    expect(JSON.stringify(sig('AccountPasswordChanged', { id: 2, passwordHash: 'scrypt$secret', reason: 'own_change' }))).to.not.contain('scrypt');
    expect(sig('AccountUpdated', { id: 2, displayName: 'B' })).to.equal(null);
  });

  it('[S2.6-38] VGL-SEC-011 when team members or grants change, when a target is filed in or moved to a project, and when a target (a holder of grants) is deleted', () => {
    expect(sig('TargetDeleted', { id: 4, kind: 'repository', uniquenessKey: 'k' }, 'repository-4')).to.include({ signature: 'VGL-SEC-011', target: 'repository-4', act: 'TARGET_DELETED' });
    for (const type of ['TeamMemberAdded', 'TeamMemberRemoved']) expect(sig(type, { teamId: 1, accountId: 2 })).to.include({ signature: 'VGL-SEC-011', target: 'team:1' });
    for (const type of ['TeamGrantAdded', 'TeamGrantRemoved']) expect(sig(type, { teamId: 1, kind: 'project', targetId: 3 })?.signature).to.equal('VGL-SEC-011');
    expect(sig('RepositoryRegistered', { id: 4, projectId: 3 }, 'repository-4')?.signature).to.equal('VGL-SEC-011');
    expect(sig('RepositoryRegistered', { id: 4, projectId: null }, 'repository-4')).to.equal(null);
    expect(sig('TargetUpdated', { id: 4, changes: { projectId: 5 } }, 'repository-4')?.signature).to.equal('VGL-SEC-011');
    expect(sig('TargetUpdated', { id: 4, changes: { name: 'x' } }, 'repository-4')).to.equal(null);
  });

  it('[S2.6-39] [S2.6-40] [S2.6-41] VGL-SEC-012 for an issued key, VGL-SEC-013 once per revoked key, never the key hash', () => {
    const issued = sig('ApiKeyIssued', { id: 9, accountId: 2, scopes: ['read'], keyHash: 'deadbeef' });
    expect(issued).to.include({ signature: 'VGL-SEC-012', severity: 5, target: 'api-key:9' });
    expect(JSON.stringify(issued)).to.not.contain('deadbeef');
    expect(sig('ApiKeyRevoked', { id: 9, reason: 'password_reset' })).to.include({ signature: 'VGL-SEC-013', severity: 4, target: 'api-key:9' });
  });

  it('[S2.6-47] VGL-SEC-019 for stored credentials and the SIEM configuration, never a sealed value', () => {
    for (const type of ['CredentialSaved', 'CredentialReplaced', 'CredentialRemoved']) {
      const s = sig(type, { id: 3, sealed: { ct: 'SECRET' } });
      expect(s?.signature).to.equal('VGL-SEC-019');
      expect(JSON.stringify(s)).to.not.contain('SECRET');
    }
    const siem = sig('SiemExportConfigured', { enabled: true, authorization: { ct: 'SECRET' } });
    expect(siem?.signature).to.equal('VGL-SEC-019');
    expect(JSON.stringify(siem)).to.not.contain('SECRET');
  });

  it('[S2.6-50] [S2.6-51] [S2.6-56] VGL-SEC-022 for source changes, -023 and -027 for refused imports', () => {
    for (const type of ['SourceDeclared', 'SourceRedeclared', 'SourceDisabled', 'SourceEnabled', 'SourceRemoved']) expect(sig(type, { slug: 'ci' })?.signature).to.equal('VGL-SEC-022');
    expect(sig('SarifImportRefused', { repositoryId: 1, reason: 'r' })).to.include({ signature: 'VGL-SEC-023', severity: 5, outcome: 'failure' });
    expect(sig('ReportImportRefused', { repositoryId: 1, kind: 'coverage', reason: 'r' })).to.include({ signature: 'VGL-SEC-027', severity: 5, outcome: 'failure' });
  });

  it('[S2.6-46] VGL-SEC-018 from AuditVerificationFailed, severity 10, act AUDIT_VERIFIED', () => {
    expect(sig('AuditVerificationFailed', { brokenAt: 4, reason: 'data' })).to.include({ signature: 'VGL-SEC-018', severity: 10, act: 'AUDIT_VERIFIED' });
  });

  it('[S2.6-31] VGL-SEC-003 from a failed GateVerdictGiven (severity 7, failure, act GATE_EVALUATED); a passed verdict signals nothing', () => {
    expect(sig('GateVerdictGiven', { id: 5, passed: false, targetKind: 'repository', targetId: 2, violationCount: 3 }))
      .to.include({ signature: 'VGL-SEC-003', severity: 7, outcome: 'failure', act: 'GATE_EVALUATED', target: 'repository:2' });
    expect(sig('GateVerdictGiven', { id: 6, passed: true, targetKind: 'repository', targetId: 2 })).to.equal(null);
  });

  it('[S2.6-32] VGL-SEC-005 when triage settles an issue without approval (not_affected, will_not_fix, fixed); other decisions signal nothing', () => {
    for (const status of ['not_affected', 'will_not_fix', 'fixed']) {
      expect(sig('TriageDecided', { status, previousStatus: 'untriaged' }, 'issue-k'), status).to.include({ signature: 'VGL-SEC-005', severity: 5, target: 'issue-k' });
    }
    for (const status of ['affected', 'under_review']) expect(sig('TriageDecided', { status, previousStatus: 'untriaged' }), status).to.equal(null);
  });

  it('[S2.6-44] [S2.6-45] VGL-SEC-016 for an approved four-eyes request (severity 5), VGL-SEC-017 for a refused one (severity 4)', () => {
    expect(sig('TriageApproved', { status: 'not_affected' }, 'issue-k')).to.include({ signature: 'VGL-SEC-016', severity: 5, target: 'issue-k' });
    expect(sig('TriageRefused', { requestedStatus: 'not_affected', status: 'under_review' }, 'issue-k')).to.include({ signature: 'VGL-SEC-017', severity: 4, target: 'issue-k' });
  });

  it('[S2.6-33] [S2.6-35] VGL-SEC-006 when a backup code is consumed, VGL-SEC-008 when a challenge is destroyed; never a code or its hash', () => {
    const consumed = sig('SecondFactorBackupCodeConsumed', { accountId: 3, index: 4, left: 9 });
    expect(consumed).to.include({ signature: 'VGL-SEC-006', severity: 6, outcome: 'success', target: 'account:3', act: 'SECOND_FACTOR_BACKUP_CODE_CONSUMED' });
    expect(sig('SecondFactorChallengeDestroyed', { accountId: 3, failures: 5 })).to.include({ signature: 'VGL-SEC-008', severity: 7, outcome: 'failure', target: 'account:3' });
    expect(JSON.stringify(sig('SecondFactorEnrolled', { accountId: 3, backupCodeHashes: ['scrypt$h1'] }))).to.not.contain('scrypt');
  });

  it('[S2.6-37] VGL-SEC-010 for the second factor (enrolled, reset) and for binding an existing account to the identity provider; creations signal once (AccountCreated)', () => {
    expect(sig('SecondFactorEnrolled', { accountId: 3, backupCodeHashes: [] })).to.include({ signature: 'VGL-SEC-010', target: 'account:3', msg: 'second factor enrolled' });
    expect(sig('SecondFactorReset', { accountId: 3 })).to.include({ signature: 'VGL-SEC-010', msg: 'second factor reset' });
    expect(sig('SsoSubjectBound', { accountId: 3, via: 'sign_on_linked', subject: 's' })?.signature).to.equal('VGL-SEC-010');
    expect(sig('SsoSubjectBound', { accountId: 3, via: 'scim' })?.signature).to.equal('VGL-SEC-010');
    expect(sig('SsoSubjectBound', { accountId: 3, via: 'sign_on_created' })).to.equal(null);
    expect(sig('ScimUserProvisioned', { accountId: 3, via: 'bound' })?.signature).to.equal('VGL-SEC-010');
    expect(sig('ScimUserProvisioned', { accountId: 3, via: 'created' })).to.equal(null);
  });

  it('[S2.6-42] VGL-SEC-014 when an agent is declared, its signing key pinned or removed, or its sealing key reset', () => {
    expect(sig('AgentRegistered', { id: 2, accountId: 4, mode: 'pull' })).to.include({ signature: 'VGL-SEC-014', severity: 6, target: 'agent:2', act: 'AGENT_REGISTERED' });
    expect(sig('AgentSigningKeyPinned', { id: 2, publicKey: 'PEM', sealingKeyWithdrawn: true })?.msg).to.equal('signing key pinned, sealing key withdrawn');
    expect(JSON.stringify(sig('AgentSigningKeyPinned', { id: 2, publicKey: 'PEM-KEY-BYTES', sealingKeyWithdrawn: false }))).to.not.contain('PEM-KEY-BYTES');
    expect(sig('AgentSigningKeyRemoved', { id: 2, sealingKeyWithdrawn: false })?.signature).to.equal('VGL-SEC-014');
    expect(sig('AgentSealingKeyWithdrawn', { id: 2 })).to.include({ signature: 'VGL-SEC-014', msg: 'sealing key reset' });
    expect(sig('AgentHelloChanged', { id: 2 })).to.equal(null);
  });

  it('[S2.6-43] [S2.6-48] VGL-SEC-015 for a refused agent result, VGL-SEC-020 for a refused sealing key, severity 8, failure', () => {
    expect(sig('AgentResultRefused', { agentId: 2, scanId: 7, report: 'result', reason: 'signature does not verify' }))
      .to.include({ signature: 'VGL-SEC-015', severity: 8, outcome: 'failure', act: 'AGENT_RESULT_REFUSED', target: 'agent:2' });
    expect(sig('AgentSealingKeyRefused', { agentId: 2, reason: 'older than the accepted key' }))
      .to.include({ signature: 'VGL-SEC-020', severity: 8, outcome: 'failure', act: 'AGENT_SEALING_KEY_REFUSED' });
  });

  it('[S2.6-58] [S2.6-59] VGL-SEC-029 when a high or critical secret becomes an issue, detected, severity 8; never its value, title or line', () => {
    const leak = { id: 11, type: 'secret', severity: 'high', targetKind: 'repository', targetId: 2, ruleId: 'aws-access-token', path: 'config/prod.env', line: 3, title: 'AKIAABCDEFGHIJKLMNOP found' };
    const s = sig('IssueDetected', leak, 'issue-k');
    expect(s).to.include({ signature: 'VGL-SEC-029', severity: 8, outcome: 'detected', target: 'repository:2', msg: 'issue 11 (high): aws-access-token in config/prod.env' });
    expect(JSON.stringify(s)).to.not.contain('AKIA');
    expect(sig('IssueDetected', { ...leak, severity: 'critical' })?.signature).to.equal('VGL-SEC-029');
    expect(sig('IssueDetected', { ...leak, severity: 'medium' })).to.equal(null);
    expect(sig('IssueDetected', { ...leak, type: 'vulnerability' })).to.equal(null);
    expect(sig('IssueReopened', { ...leak }), 'not a new issue').to.equal(null);
  });

  it('[S2.6-64] VGL-SEC-032 when a project export leaves (downloaded), severity 4, the SHA-256 first in the message', () => {
    const sha = 'a'.repeat(64);
    expect(sig('ProjectExported', { projectId: 3, sha256: sha, siem: { signature: 'VGL-SEC-032', message: `${sha} project 3 export 1 (10 bytes, as of x) downloaded by account 1` } }))
      .to.include({ signature: 'VGL-SEC-032', severity: 4, act: 'PROJECT_EXPORTED', target: 'project:3' })
      .and.satisfy((x: { msg: string }) => x.msg.startsWith(sha));
  });

  it('[S2.6-60] [S2.6-62] VGL-SEC-030 from RemediationDeadlinePassed, detected, severity 8 critical, 7 high, 5 medium, 3 low', () => {
    const passed = (severity: string) => sig('RemediationDeadlinePassed', { id: 4, severity, targetKind: 'container', targetId: 9, deadline: '2026-02-01T00:00:00.000Z' });
    expect(passed('critical')).to.include({ signature: 'VGL-SEC-030', severity: 8, outcome: 'detected', target: 'container:9', act: 'REMEDIATION_DEADLINE_PASSED' });
    expect(['high', 'medium', 'low'].map((x) => passed(x)?.severity)).to.deep.equal([7, 5, 3]);
  });

  it('[S2.6-71] [S1.6-11] VGL-SEC-037 from TriageContradictedByTracker, detected, severity 4, act TRIAGE_CONTRADICTED_BY_TRACKER', () => {
    expect(sig('TriageContradictedByTracker', { integration: 'jira', proposedStatus: 'not_affected', status: 'fixed' }, 'issue-k'))
      .to.include({ signature: 'VGL-SEC-037', severity: 4, outcome: 'detected', act: 'TRIAGE_CONTRADICTED_BY_TRACKER', target: 'issue-k' });
  });

  it('[S1.6-01] [S1.6-02] [S1.6-07] [S1.6-08] accepted imports, agent scan failures and accepted agent results signal nothing', () => {
    for (const type of ['CoverageImportAccepted', 'TestReportImportAccepted', 'ScanFailed', 'AgentResultSubmitted', 'SarifImportAccepted']) expect(sig(type, {}), type).to.equal(null);
  });

  it('every rule names a signature of the table marked emitted, with the table\'s severity', () => {
    const samples: Record<string, Record<string, unknown>> = { GateVerdictGiven: { passed: false }, TriageDecided: { status: 'fixed' }, TargetUpdated: { changes: { projectId: 1 } }, RepositoryRegistered: { projectId: 1 }, ContainerImageRegistered: { projectId: 1 }, SettingChanged: { name: 'triage_four_eyes' }, AccountUpdated: { roles: [] }, AccountCreated: { username: 'a', roles: [] }, AccountPasswordChanged: { passwordHash: 'x', reason: 'reset' },
      SsoSubjectBound: { via: 'scim' }, ScimUserProvisioned: { via: 'bound' }, IssueDetected: { type: 'secret', severity: 'high' }, RemediationDeadlinePassed: { severity: 'medium' } };
    for (const type of Object.keys(EVENT_SIGNALS)) {
      const s = sig(type, samples[type] ?? {});
      expect(s, type).to.not.equal(null);
      expect(SIGNATURES[s!.signature].emitted, type).to.equal(true);
      // VGL-SEC-030 alone takes the late issue's severity (S2.6-62).
      expect(s!.severity, type).to.equal(s!.signature === 'VGL-SEC-030' ? 5 : SIGNATURES[s!.signature].severity);
    }
  });
});
