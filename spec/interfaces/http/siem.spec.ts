import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../application/ports/clock';
import { startVigil, RunningVigil } from '../../support/vigil';
import { octetFrames, tcpReceiver, testCertificates, udpReceiver, webhookReceiver } from '../../support/siem-receivers';

const KEY = randomBytes(32).toString('base64');
const SECRET = 'Bearer siem-token-do-not-leak-7f3a';

describe('SIEM export over HTTP (spec 2 §4.5, §6)', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  let clock: ManualClock;

  before(async () => {
    clock = new ManualClock(new Date('2026-11-25T12:00:00.000Z'));
    v = await startVigil({ clock, env: { ENCRYPTION_KEY: KEY, VIGIL_SIEM_HOSTNAME: 'vigil-test', VIGIL_SIEM_TIMEOUT: '3s' } });
    admin = await v.signIn();
  });
  after(async () => { await v.services.siemDeliverer.stop(); await v.stop(); });

  const put = (body: Record<string, unknown>, token = admin) => v.request('PUT', '/siem/config', { token, body });
  const allowPrivate = (on: boolean) => v.request('PATCH', '/settings', { token: admin, body: { siem_allow_private_destination: on } });

  it('[S2.4.5-01] GET and PUT /siem/config: administrator or security lead; others 403', async () => {
    const writer = await v.account(['writer']);
    const auditor = await v.account(['auditor']);
    const lead = await v.account(['security_lead']);
    const before = await v.eventCount();
    expect((await v.request('GET', '/siem/config', { token: writer.token })).status).to.equal(403);
    expect((await v.request('GET', '/siem/config', { token: auditor.token })).status).to.equal(403);
    expect((await put({ enabled: false, protocol: 'syslog_udp', endpoint: 'siem.example.com:514' }, writer.token)).status).to.equal(403);
    expect(await v.eventCount()).to.equal(before);
    expect((await v.request('GET', '/siem/config', { token: lead.token })).status).to.equal(200);
    const saved = await put({ enabled: false, protocol: 'syslog_udp', endpoint: 'siem.example.com:514' }, lead.token);
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.include({ enabled: false, protocol: 'syslog_udp', endpoint: 'siem.example.com:514', minimumSeverity: 'high' });
  });

  it('[S2.4.5-05] [S2.4.5-08] [S2.4.5-09] [S2.2.8-01] malformed endpoints are refused on save, nothing written', async () => {
    const before = await v.eventCount();
    for (const [protocol, endpoint] of [
      ['syslog_tcp', 'tcp://siem.example.com:514'], ['syslog_tcp', 'siem.example.com'], ['syslog_udp', 'siem.example.com:0'], ['syslog_tls', 'siem.example.com:70000'],
      ['syslog_tcp', '[not-v6]:514'], ['syslog_tcp', '::1:514'], ['syslog_tcp', 'bad_host:514'], ['webhook', 'ftp://siem.example.com/x'], ['webhook', 'siem.example.com:443'],
      ['webhook', 'https://user:pw@siem.example.com/'], ['syslog_relp', 'siem.example.com:514'],
    ]) {
      const r = await put({ enabled: true, protocol, endpoint });
      expect(r.status, `${protocol} ${endpoint}: ${r.text}`).to.equal(400);
    }
    expect(await v.eventCount()).to.equal(before);
    for (const endpoint of ['siem.example.com:6514', '93.184.216.34:514', '[2606:4700::1111]:514']) {
      expect((await put({ enabled: false, protocol: 'syslog_tls', endpoint })).status, endpoint).to.equal(200);
    }
  });

  it('[S2.2.8-05] the private-destination switch is administrator-only, off by default; off refuses loopback and private addresses', async () => {
    const lead = await v.account(['security_lead']);
    expect((await v.request('GET', '/siem/config', { token: admin })).body.allowPrivateDestination).to.equal(false);
    expect((await v.request('PATCH', '/settings', { token: lead.token, body: { siem_allow_private_destination: true } })).status).to.equal(403);
    for (const endpoint of ['127.0.0.1:514', '10.1.2.3:514', '[::1]:514', '169.254.169.254:514']) {
      const r = await put({ enabled: true, protocol: 'syslog_tcp', endpoint });
      expect(r.status, endpoint).to.equal(400);
      expect(r.body.detail).to.match(/siem_allow_private_destination|never connects/);
    }
    expect((await allowPrivate(true)).status).to.equal(200);
    expect((await put({ enabled: false, protocol: 'syslog_tcp', endpoint: '127.0.0.1:514' })).status).to.equal(200);
    // link-local and metadata stay refused whatever the switch
    expect((await put({ enabled: false, protocol: 'syslog_tcp', endpoint: '169.254.169.254:514' })).status).to.equal(400);
  });

  it('[S2.2.8-02] [S2.4.5-02] [S2.4.5-03] [S2.4.5-04] Authorization sealed, dropped with a new endpoint unless retyped; tlsCaPem kept, removed, dropped', async () => {
    const { caPem } = testCertificates();
    let r = await put({ enabled: false, protocol: 'webhook', endpoint: 'https://siem.example.com/a', authorization: SECRET });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.authorizationSet).to.equal(true);
    expect(JSON.stringify(r.body)).to.not.contain('siem-token');
    const rows = await v.database.db.knex('events').select('data', 'metadata');
    expect(JSON.stringify(rows)).to.not.contain('siem-token-do-not-leak');
    r = await put({ enabled: false, protocol: 'webhook', endpoint: 'https://siem.example.com/a', minimumSeverity: 'low' });
    expect(r.body.authorizationSet, 'same endpoint keeps it').to.equal(true);
    r = await put({ enabled: false, protocol: 'webhook', endpoint: 'https://siem.example.com/b' });
    expect(r.body.authorizationSet, 'a new endpoint drops it').to.equal(false);
    expect((await put({ enabled: false, protocol: 'syslog_tcp', endpoint: 'siem.example.com:514', authorization: SECRET })).status).to.equal(400);
    expect((await put({ enabled: false, protocol: 'syslog_tcp', endpoint: 'siem.example.com:514', tlsCaPem: caPem })).status).to.equal(400);
    expect((await put({ enabled: false, protocol: 'syslog_tls', endpoint: 'siem.example.com:6514', tlsCaPem: 'not a pem' })).status).to.equal(400);
    expect((await put({ enabled: false, protocol: 'syslog_tls', endpoint: 'siem.example.com:6514', tlsCaPem: caPem.repeat(9) })).status).to.equal(400);
    r = await put({ enabled: false, protocol: 'syslog_tls', endpoint: 'siem.example.com:6514', tlsCaPem: caPem });
    expect(r.body.tlsCaPem).to.contain('BEGIN CERTIFICATE');
    r = await put({ enabled: false, protocol: 'syslog_tls', endpoint: 'siem.example.com:6515' });
    expect(r.body.tlsCaPem, 'absent keeps it').to.contain('BEGIN CERTIFICATE');
    r = await put({ enabled: false, protocol: 'syslog_tls', endpoint: 'siem.example.com:6515', tlsCaPem: '' });
    expect(r.body.tlsCaPem, 'empty removes it').to.equal(null);
    await put({ enabled: false, protocol: 'syslog_tls', endpoint: 'siem.example.com:6515', tlsCaPem: caPem });
    r = await put({ enabled: false, protocol: 'syslog_tcp', endpoint: 'siem.example.com:6515' });
    expect(r.body.tlsCaPem, 'switching away removes it').to.equal(null);
  });

  it('[S2.6-01] [S2.6-02] [S2.6-03] [S2.6-24] [S2.4.5-13] an event is queued with its cause and delivered over TCP, octet-counted, externalId = event id', async () => {
    await allowPrivate(true);
    const tcp = await tcpReceiver();
    try {
      expect((await put({ enabled: true, protocol: 'syslog_tcp', endpoint: tcp.endpoint, minimumSeverity: 'low' })).status).to.equal(200);
      const created = await v.request('POST', '/accounts', { token: admin, body: { username: 'siem-alice', displayName: 'Alice', password: 'a-long-enough-password', roles: ['writer'] } });
      expect(created.status).to.equal(201);
      const queued = await v.database.db.knex('siem_outbox').where({ signature: 'VGL-SEC-010' }).first();
      expect(queued, 'queued with its cause (read your writes)').to.not.equal(undefined);
      const event = await v.database.db.knex('events').where({ event_id: queued.event_id }).first();
      expect(event.type).to.equal('AccountCreated');
      const summary = await v.services.siemDeliverer.drain();
      expect(summary.delivered).to.be.greaterThan(0);
      await new Promise((r) => setTimeout(r, 100));
      const frames = tcp.frames;
      const line = frames.find((f) => f.includes(`externalId=${queued.event_id}`));
      expect(line, frames.join('\n')).to.not.equal(undefined);
      expect(line).to.equal(`<84>1 2026-11-25T12:00:00.000Z vigil-test vigil - VGL-SEC-010 - CEF:0|Vigil|Vigil|0.1.0|VGL-SEC-010|Account privileges or credentials changed|6|rt=${Date.parse('2026-11-25T12:00:00.000Z')} outcome=success suser=admin src=127.0.0.1 act=ACCOUNT_CHANGED cs1=account:${created.body.id} cs1Label=Target cs2=node cs2Label=UserAgent externalId=${queued.event_id} msg=created with roles writer`);
      expect(octetFrames(Buffer.concat(tcp.raw))).to.have.length(frames.length);
      expect((await v.services.siemDeliverer.drain()).delivered, 'nothing twice').to.equal(0);
    } finally {
      await tcp.close();
    }
  });
});
