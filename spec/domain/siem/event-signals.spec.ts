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

  it('[S2.6-38] VGL-SEC-011 when team members or grants change and when a target is filed in or moved to a project', () => {
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

  it('every rule names a signature of the table marked emitted, with the table\'s severity', () => {
    const samples: Record<string, Record<string, unknown>> = { GateVerdictGiven: { passed: false }, TriageDecided: { status: 'fixed' }, TargetUpdated: { changes: { projectId: 1 } }, RepositoryRegistered: { projectId: 1 }, ContainerImageRegistered: { projectId: 1 }, SettingChanged: { name: 'triage_four_eyes' }, AccountUpdated: { roles: [] }, AccountCreated: { username: 'a', roles: [] }, AccountPasswordChanged: { passwordHash: 'x', reason: 'reset' } };
    for (const type of Object.keys(EVENT_SIGNALS)) {
      const s = sig(type, samples[type] ?? {});
      expect(s, type).to.not.equal(null);
      expect(SIGNATURES[s!.signature].emitted, type).to.equal(true);
      expect(s!.severity, type).to.equal(SIGNATURES[s!.signature].severity);
    }
  });
});
