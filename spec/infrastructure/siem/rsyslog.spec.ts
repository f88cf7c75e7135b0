import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ManualClock } from '../../../application/ports/clock';
import { skipOrFail } from '../scanning/support';
import { testCertificates, until } from '../../support/siem-receivers';
import { RunningVigil, startVigil } from '../../support/vigil';
import { freePort } from '../../support/free-port';

const RSYSLOGD = '/usr/sbin/rsyslogd';

/** A free loopback port (TCP; UDP ports of the same number are free alike on a quiet loopback). */
/**
 * Debian's rsyslogd, our own instance: its own configuration and work directory, listening on
 * loopback on UDP, TCP and TLS (GnuTLS, a test CA made with openssl), writing each message it
 * received to a file per input twice: raw (%rawmsg%, the bytes after octet-count framing) and as
 * rsyslog parsed it (PRI, version, host, app, procid, msgid), so that the specs prove both.
 */
class Rsyslog {
  process: ChildProcess | null = null;
  constructor(readonly dir: string, readonly ports: { udp: number; tcp: number; tls: number }) {}

  static async create(certs: ReturnType<typeof testCertificates>): Promise<Rsyslog> {
    const dir = fs.mkdtempSync(path.join(certs.dir, 'rsyslog-'));
    const r = new Rsyslog(dir, { udp: await freePort(), tcp: await freePort(), tls: await freePort() });
    const out = (name: string) => `ruleset(name="${name}") {
  action(type="omfile" file="${dir}/${name}.raw" template="raw")
  action(type="omfile" file="${dir}/${name}.parsed" template="parsed")
}`;
    fs.writeFileSync(path.join(dir, 'rsyslog.conf'), `
global(workDirectory="${dir}" maxMessageSize="64k"
  defaultNetstreamDriverCAFile="${certs.caFile}" defaultNetstreamDriverCertFile="${certs.certFile}" defaultNetstreamDriverKeyFile="${certs.keyFile}")
module(load="imudp")
module(load="imtcp" maxSessions="100")
template(name="raw" type="string" string="%rawmsg%\\n")
template(name="parsed" type="string" string="%pri%|%protocol-version%|%hostname%|%app-name%|%procid%|%msgid%|%structured-data%\\n")
${out('udp')}
${out('tcp')}
${out('tls')}
input(type="imudp" address="127.0.0.1" port="${r.ports.udp}" ruleset="udp")
input(type="imtcp" address="127.0.0.1" port="${r.ports.tcp}" ruleset="tcp")
input(type="imtcp" address="127.0.0.1" port="${r.ports.tls}" ruleset="tls" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
`);
    await r.start();
    return r;
  }

  async start(): Promise<void> {
    this.process = spawn(RSYSLOGD, ['-n', '-f', path.join(this.dir, 'rsyslog.conf'), '-i', path.join(this.dir, 'rsyslogd.pid')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    this.process.stderr!.on('data', (c) => { stderr += c; });
    await until(async () => {
      if (this.process?.exitCode !== null) throw new Error(`rsyslogd stopped: ${stderr}`);
      return (await Promise.all([this.ports.tcp, this.ports.tls].map((port) => new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
        s.on('error', () => resolve(false));
      })))).every(Boolean);
    }, 15_000);
  }

  async stop(): Promise<void> {
    const p = this.process;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => { p.once('exit', () => resolve()); p.kill('SIGTERM'); });
    this.process = null;
  }

  lines(input: 'udp' | 'tcp' | 'tls', kind: 'raw' | 'parsed'): string[] {
    const file = path.join(this.dir, `${input}.${kind}`);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }
}

describe('SIEM export to Debian\'s rsyslog on loopback (UDP, TCP, TLS)', function () {
  this.timeout(120_000);
  let rsyslog: Rsyslog;
  let certs: ReturnType<typeof testCertificates>;
  let v: RunningVigil;
  let admin: string;
  const clock = new ManualClock(new Date('2026-11-25T12:00:00.000Z'));

  before(async function () {
    const required = process.env.CI === 'true' || process.env.VIGIL_TEST_RSYSLOG === '1';
    if (!fs.existsSync(RSYSLOGD)) return skipOrFail(this, 'rsyslog', `${RSYSLOGD} is not installed (bash scripts/ci/rsyslog.sh installs it)`, required, 'VIGIL_TEST_RSYSLOG=1 requires rsyslog');
    certs = testCertificates();
    rsyslog = await Rsyslog.create(certs);
    v = await startVigil({ clock, env: { VIGIL_SIEM_HOSTNAME: 'vigil-ci', VIGIL_SIEM_TIMEOUT: '3s' } });
    admin = await v.signIn();
    expect((await v.request('PATCH', '/settings', { token: admin, body: { siem_allow_private_destination: true } })).status).to.equal(200);
  });
  after(async () => {
    await v?.services.siemDeliverer.stop();
    await v?.stop();
    await rsyslog?.stop();
  });

  const put = (body: Record<string, unknown>) => v.request('PUT', '/siem/config', { token: admin, body: { minimumSeverity: 'low', ...body } });

  /** Queues one VGL-SEC-012 (an API key issued) and answers its outbox row. */
  async function issueKey(): Promise<any> {
    expect((await v.request('POST', '/api-keys', { token: admin, body: { name: `k${Date.now()}${Math.random()}`, scopes: ['read'] } })).status).to.equal(201);
    return v.database.db.knex('siem_outbox').where({ signature: 'VGL-SEC-012' }).orderBy('position', 'desc').first();
  }

  for (const input of ['udp', 'tcp', 'tls'] as const) {
    it(`[S2.4.5-10] [S2.4.5-12] [S2.4.5-13] [S2.6-17] syslog ${input}: rsyslog receives the exact RFC 5424 message${input === 'udp' ? '' : ', octet-counted'}, and parses facility 10, host, app vigil, MSGID`, async () => {
      const endpoint = `${input === 'tls' ? 'localhost' : '127.0.0.1'}:${rsyslog.ports[input]}`;
      const r = await put({ enabled: true, protocol: `syslog_${input}`, endpoint, ...(input === 'tls' ? { tlsCaPem: certs.caPem } : {}) });
      expect(r.status, r.text).to.equal(200);
      const row = await issueKey();
      await v.services.siemDeliverer.drain();
      const raw = await until(() => rsyslog.lines(input, 'raw').find((l) => l.includes(`externalId=${row.event_id}`)));
      expect(raw).to.equal(`<84>1 2026-11-25T12:00:00.000Z vigil-ci vigil - VGL-SEC-012 - CEF:0|Vigil|Vigil|0.1.0|VGL-SEC-012|API key issued|5|rt=${Date.parse(row.at)} `
        + `outcome=success suser=admin src=127.0.0.1 act=API_KEY_ISSUED cs1=${row.target} cs1Label=Target cs2=node cs2Label=UserAgent externalId=${row.event_id} msg=for account:1, scopes read`);
      const parsed = rsyslog.lines(input, 'parsed');
      // facility authpriv (10) and warning (4, CEF 5 is medium): PRI 84; everything RFC 5424 names, parsed by rsyslog itself
      expect(parsed).to.include('84|1|vigil-ci|vigil|-|VGL-SEC-012|-');
    });
  }

  it('[S2.6-02] [S2.6-03] at least once across a collector outage: queued while rsyslog is down, delivered after it is back, same externalId', async () => {
    await put({ enabled: true, protocol: 'syslog_tcp', endpoint: `127.0.0.1:${rsyslog.ports.tcp}` });
    await v.services.siemDeliverer.drain();
    await rsyslog.stop();
    const rows = [await issueKey(), await issueKey(), await issueKey()];
    const down = await v.services.siemDeliverer.drain();
    expect(down.retrying).to.equal(3);
    await rsyslog.start();
    clock.advance(61_000);
    const back = await v.services.siemDeliverer.drain();
    expect(back.delivered).to.equal(3);
    for (const row of rows) await until(() => rsyslog.lines('tcp', 'raw').some((l) => l.includes(`externalId=${row.event_id}`)));
    const ids = rsyslog.lines('tcp', 'raw').map((l) => /externalId=(\S+)/.exec(l)?.[1]).filter(Boolean);
    for (const row of rows) expect(ids.filter((id) => id === row.event_id).length, 'once per externalId after deduplication').to.be.greaterThan(0);
    expect(new Set(ids).size).to.be.at.most(ids.length);
  });
});
