import { expect } from 'chai';
import { escapeExtension, escapeHeader, formatCef, SiemSignal } from '../../../domain/siem/cef';
import { signalOf } from '../../../domain/siem/event-signals';
import { LOWEST_PASSING, passesMinimum, SIGNATURES } from '../../../domain/siem/signatures';
import { formatSyslog, octetCounted } from '../../../domain/siem/syslog';

const base: SiemSignal = {
  signature: 'VGL-SEC-003', severity: 7, outcome: 'failure', act: 'GATE_EVALUATED', rt: 1764091200123,
  suser: 'alice', src: '192.0.2.7', target: 'repository:4', externalId: '0b6f8c2e-1d1a-4c38-9a4e-2f0a5d7b9c11', msg: 'SECURITY_GATE_FAILED verdict 9: 2 violation(s)',
};

describe('SIEM formats (CEF and RFC 5424)', () => {
  it('[S2.6-17] [S2.6-18] [S2.6-19] [S2.6-20] [S2.6-21] [S2.6-22] [S2.6-24] a CEF line: header, then rt in epoch ms, outcome, suser, src, act, cs1 Target, externalId, msg', () => {
    expect(formatCef({ ...base, userAgent: 'curl/8.5' }, '0.1.0')).to.equal(
      'CEF:0|Vigil|Vigil|0.1.0|VGL-SEC-003|Security gate refused a build|7|rt=1764091200123 outcome=failure suser=alice src=192.0.2.7 act=GATE_EVALUATED '
      + 'cs1=repository:4 cs1Label=Target cs2=curl/8.5 cs2Label=UserAgent externalId=0b6f8c2e-1d1a-4c38-9a4e-2f0a5d7b9c11 msg=SECURITY_GATE_FAILED verdict 9: 2 violation(s)',
    );
  });

  it('[S2.6-23] cs3 Identifier carries a CVE and cs4 Component a package', () => {
    const line = formatCef({ ...base, signature: 'VGL-SEC-002', severity: 10, outcome: 'detected', act: 'KEV_LISTED', identifier: 'CVE-2024-3094', component: 'xz-utils', msg: null }, '0.1.0');
    expect(line).to.contain(' cs3=CVE-2024-3094 cs3Label=Identifier cs4=xz-utils cs4Label=Component externalId=');
    expect(line.startsWith('CEF:0|Vigil|Vigil|0.1.0|VGL-SEC-002|Actively exploited vulnerability detected|10|')).to.equal(true);
  });

  it('[S2.6-26] extension values escape backslash and equals, and keep pipes', () => {
    expect(escapeExtension('a=b\\c|d')).to.equal('a\\=b\\\\c|d');
    expect(formatCef({ ...base, msg: 'k=v \\ x' }, '1')).to.match(/ msg=k\\=v \\\\ x$/);
  });

  it('[S2.6-27] header fields escape backslash and pipe, and keep equals', () => {
    expect(escapeHeader('1.0|beta\\x=y')).to.equal('1.0\\|beta\\\\x=y');
    expect(formatCef(base, '1|2').startsWith('CEF:0|Vigil|Vigil|1\\|2|VGL-SEC-003|')).to.equal(true);
  });

  it('[S2.6-28] line breaks become \\n and \\r, other control characters a space', () => {
    expect(escapeExtension('a\r\nb\tc\u0000d\u007fe\u0085f')).to.equal('a\\r\\nb c d e f');
    expect(escapeHeader('x\ny')).to.equal('x\\ny');
  });

  it('[S2.6-25] msg is cut at 1,024 characters (code points)', () => {
    const line = formatCef({ ...base, msg: '😀'.repeat(1500) }, '1');
    const msg = line.slice(line.indexOf(' msg=') + 5);
    expect(Array.from(msg)).to.have.length(1024);
  });

  it('[S2.4.5-10] [S2.4.5-11] [S2.4.5-12] RFC 5424: facility 10, severity mapped from CEF, host, app vigil, MSGID the signature, no BOM', () => {
    const cef = formatCef(base, '0.1.0');
    const at = Date.UTC(2026, 10, 25, 17, 40, 0, 123);
    // 7 (high) -> error (3): PRI 10*8+3 = 83
    expect(formatSyslog({ severity: 7, at, hostname: 'vigil-1.example', signature: 'VGL-SEC-003', cef }))
      .to.equal(`<83>1 2026-11-25T17:40:00.123Z vigil-1.example vigil - VGL-SEC-003 - ${cef}`);
    const pri = (severity: number) => formatSyslog({ severity, at, hostname: 'h', signature: 'VGL-SEC-999', cef: 'x' }).slice(0, 4);
    expect([10, 9, 8, 7, 6, 4, 3, 1].map(pri)).to.deep.equal(['<82>', '<82>', '<83>', '<83>', '<84>', '<84>', '<85>', '<85>']);
    const bytes = Buffer.from(formatSyslog({ severity: 1, at, hostname: 'h', signature: 'VGL-SEC-999', cef: 'é' }));
    expect(bytes.includes(Buffer.from([0xef, 0xbb, 0xbf]))).to.equal(false);
    expect(formatSyslog({ severity: 1, at, hostname: 'a host\n', signature: 'VGL-SEC-999', cef: 'x' })).to.contain(' ahost vigil ');
  });

  it('[S2.4.5-13] TCP and TLS frames are octet-counted: the byte length, a space, the message', () => {
    expect(octetCounted('<85>1 é').toString('utf8')).to.equal('8 <85>1 é');
  });

  it('[S2.6-11] [S2.6-12] [S2.6-13] [S2.6-14] minimum severities: critical 9-10, high 7-10, medium 4-10, low all', () => {
    expect(LOWEST_PASSING).to.deep.equal({ critical: 9, high: 7, medium: 4, low: 0 });
    expect([passesMinimum(8, 'critical'), passesMinimum(9, 'critical'), passesMinimum(6, 'high'), passesMinimum(7, 'high'),
      passesMinimum(3, 'medium'), passesMinimum(4, 'medium'), passesMinimum(1, 'low')]).to.deep.equal([false, true, false, true, false, true, true]);
  });

  it('signatures: 001 and 004 retired; the table holds every other number of spec 2 §6 with its severity', () => {
    expect(SIGNATURES).to.not.have.property('VGL-SEC-001');
    expect(SIGNATURES).to.not.have.property('VGL-SEC-004');
    expect(Object.keys(SIGNATURES)).to.have.length(36);
    expect(SIGNATURES['VGL-SEC-018'].severity).to.equal(10);
  });

  it('[S2.6-32] [S2.6-44] [S2.6-45] triage: a settling decision signals 005, an approval 016, a refusal 017; a non-settling decision nothing', () => {
    expect(signalOf('TriageDecided', { status: 'not_affected', previousStatus: 'under_review' }, 'issue-k')?.signature).to.equal('VGL-SEC-005');
    expect(signalOf('TriageDecided', { status: 'affected', previousStatus: 'under_review' }, 'issue-k')).to.equal(null);
    expect(signalOf('TriageApproved', { status: 'fixed' }, 'issue-k')).to.include({ signature: 'VGL-SEC-016', severity: 5 });
    expect(signalOf('TriageRefused', { status: 'affected', requestedStatus: 'fixed' }, 'issue-k')).to.include({ signature: 'VGL-SEC-017', severity: 4 });
  });

  it('[S2.6-31] a failing verdict signals 003 with act GATE_EVALUATED; a passing one nothing', () => {
    expect(signalOf('GateVerdictGiven', { passed: false, id: 1, targetKind: 'repository', targetId: 2, violationCount: 1 }, 'gate-verdict-1'))
      .to.include({ signature: 'VGL-SEC-003', act: 'GATE_EVALUATED', outcome: 'failure', target: 'repository:2' });
    expect(signalOf('GateVerdictGiven', { passed: true }, 'gate-verdict-1')).to.equal(null);
  });

  it('[S2.6-37] [S2.6-47] a display name alone is not signalled; roles are (010); only security-relevant settings signal 019', () => {
    expect(signalOf('AccountUpdated', { id: 3, displayName: 'X' }, 'account-3')).to.equal(null);
    expect(signalOf('AccountUpdated', { id: 3, roles: ['auditor'] }, 'account-3')?.signature).to.equal('VGL-SEC-010');
    expect(signalOf('SettingChanged', { name: 'triage_four_eyes', value: true }, 'settings')?.signature).to.equal('VGL-SEC-019');
    expect(signalOf('SettingChanged', { name: 'scan_default_interval_days', value: 3 }, 'settings')).to.equal(null);
  });
});
