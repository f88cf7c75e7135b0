import { expect } from 'chai';
import { ManualClock } from '../../../application/ports/clock';
import { seedFindings } from '../../support/backlog';
import { startVigil, RunningVigil } from '../../support/vigil';
import { tcpReceiver, Received, until } from '../../support/siem-receivers';

const T0 = '2026-01-05T12:00:00.000Z';
const DAY = 86_400_000;
const at = (days: number, extraMs = 0) => new Date(Date.parse(T0) + days * DAY + extraMs);

/**
 * Signals of spec 2 §6 that come from the backlog, end to end: the ingestion path and the hourly
 * deadline turn append their events, the outbox projection queues them, the deliverer sends them to
 * a TCP collector on loopback.
 */
describe('SIEM signals from the backlog: leaked secrets (VGL-SEC-029) and remediation deadlines (VGL-SEC-030)', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let clock: ManualClock;
  let tcp: Received;
  let repo: number;

  before(async () => {
    clock = new ManualClock(new Date(T0));
    v = await startVigil({ clock, env: { VIGIL_SIEM_HOSTNAME: 'vigil-test' } });
    tcp = await tcpReceiver();
    const admin = await v.signIn();
    await v.request('PATCH', '/settings', { token: admin, body: { siem_allow_private_destination: true } });
    expect((await v.request('PUT', '/siem/config', { token: admin, body: { enabled: true, protocol: 'syslog_tcp', endpoint: tcp.endpoint, minimumSeverity: 'low' } })).status).to.equal(200);
    repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/siem/signals' } })).body.id;
  });
  after(async () => { await tcp?.close(); await v?.stop(); });

  const queued = (signature: string) => v.database.db.knex('siem_outbox').where({ signature }).orderBy('position');
  const sent = async (eventId: string) => {
    await v.services.siemDeliverer.drain();
    return until(() => tcp.frames.find((f) => f.includes(`externalId=${eventId}`)));
  };

  it('[S2.6-58] [S2.6-59] a high or critical secret that becomes an issue signals VGL-SEC-029 once, without its value; a medium one and a reopening do not', async () => {
    const value = 'AKIAZZZZEXAMPLEVALUE';
    const secrets = [
      { ruleId: 'aws-access-token', path: 'deploy/prod.env', severity: 'high' as const, title: `AWS key ${value}`, line: 4 },
      { ruleId: 'private-key', path: 'keys/id_rsa', severity: 'critical' as const, title: 'Private key' },
      { ruleId: 'generic-api-key', path: 'src/a.js', severity: 'medium' as const, title: 'Generic key' },
    ];
    await seedFindings(v, { kind: 'repository', id: repo }, secrets, { toolKey: 'scanner:secrets', type: 'secret' });
    let rows = await queued('VGL-SEC-029');
    expect(rows.map((r: any) => r.msg.replace(/^issue \d+ /, ''))).to.have.members(['(high): aws-access-token in deploy/prod.env', '(critical): private-key in keys/id_rsa']);
    expect(rows).to.have.length(2);
    expect(rows.every((r: any) => r.severity === 8 && r.outcome === 'detected' && r.target === `repository:${repo}`)).to.equal(true);
    const frame = await sent(rows[0].event_id);
    expect(frame).to.contain('|VGL-SEC-029|Secret leaked in source code|8|');
    expect(tcp.frames.join('\n')).to.not.contain(value);
    // Resolved, then reported again: a reopening, not a new issue.
    await seedFindings(v, { kind: 'repository', id: repo }, [], { toolKey: 'scanner:secrets', type: 'secret' });
    await seedFindings(v, { kind: 'repository', id: repo }, secrets, { toolKey: 'scanner:secrets', type: 'secret' });
    rows = await queued('VGL-SEC-029');
    expect(rows, 'once per issue').to.have.length(2);
    await seedFindings(v, { kind: 'repository', id: repo }, [], { toolKey: 'scanner:secrets', type: 'secret' }); // resolved: no deadline below
  });

  it('[S2.6-60] [S2.6-61] [S2.6-62] the hourly turn signals VGL-SEC-030 when an unsettled open issue passes its deadline: once, within seven days only, severity 8/7/5/3', async () => {
    const admin = await v.signIn();
    await seedFindings(v, { kind: 'repository', id: repo }, [
      { ruleId: 'CVE-CRIT', severity: 'critical' }, { ruleId: 'CVE-HIGH-OLD', severity: 'high' }, { ruleId: 'CVE-MED', severity: 'medium' },
      { ruleId: 'CVE-LOW', severity: 'low' }, { ruleId: 'CVE-CRIT-SETTLED', severity: 'critical' },
    ], { toolKey: 'scanner:deadlines' });
    const issues = (await v.request('GET', `/issues?repository_id=${repo}&limit=1000`, { token: admin })).body as Array<{ id: number; ruleId: string }>;
    const idOf = (ruleId: string) => issues.find((i) => i.ruleId === ruleId)!.id;
    expect((await v.request('POST', `/issues/${idOf('CVE-CRIT-SETTLED')}/triage`, { token: admin, body: { status: 'not_affected', justification: 'code_not_reachable' } })).status).to.equal(200);
    const watch = v.services.deadlineWatch;
    const deadlineRows = async () => (await queued('VGL-SEC-030')).map((r: any) => ({ severity: r.severity, issue: Number(/^issue (\d+) /.exec(r.msg)![1]), eventId: r.event_id }));

    clock.set(at(7, -1)); // the critical deadline (7 days) not yet passed
    expect(await watch.runOnce()).to.deep.equal({ passed: 0 });
    clock.set(at(7, 3_600_000));
    expect(await watch.runOnce()).to.deep.equal({ passed: 1 });
    expect(await watch.runOnce(), 'nothing twice').to.deep.equal({ passed: 0 });
    let rows = await deadlineRows();
    expect(rows.map(({ severity, issue }) => ({ severity, issue }))).to.deep.equal([{ severity: 8, issue: idOf('CVE-CRIT') }]);
    const frame = await sent(rows[0].eventId);
    expect(frame).to.match(/^<83>1 \S+ vigil-test vigil - VGL-SEC-030 - CEF:0\|Vigil\|Vigil\|[^|]+\|VGL-SEC-030\|Remediation deadline passed\|8\|/);

    // The old high issue's deadline (30 days) passed eight days before this turn: outside the seven days.
    clock.set(at(38, 3_600_000));
    expect(await watch.runOnce()).to.deep.equal({ passed: 0 });
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'CVE-HIGH-NEW', severity: 'high' }], { toolKey: 'scanner:deadlines-2' });
    clock.set(at(68, 7_200_000)); // the new high issue's deadline: day 68 plus an hour
    expect(await watch.runOnce()).to.deep.equal({ passed: 1 });
    clock.set(at(90, 3_600_000)); // medium: 90 days
    expect(await watch.runOnce()).to.deep.equal({ passed: 1 });
    clock.set(at(180, 3_600_000)); // low: 180 days
    expect(await watch.runOnce()).to.deep.equal({ passed: 1 });
    rows = await deadlineRows();
    expect(rows.map((r) => r.severity)).to.deep.equal([8, 7, 5, 3]);
    expect(rows.map((r) => r.issue)).to.not.include(idOf('CVE-CRIT-SETTLED'));
    expect(rows.map((r) => r.issue)).to.not.include(idOf('CVE-HIGH-OLD'));
  });
});
