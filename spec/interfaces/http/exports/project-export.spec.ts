import { expect } from 'chai';
import { createHash } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { requireCorpus } from '../../../support/corpus';
import { buildWorld, ExportWorld, fetchBytes, verifyWithOpenssl } from './world';
import { tcpReceiver, until } from '../../../support/siem-receivers';

describe('project export vigil-project-export 1.1 (spec 2 §2.6, §9) @db', function () {
  this.timeout(120_000);
  requireCorpus(this);
  let w: ExportWorld;
  before(async () => { w = await buildWorld(); });
  after(async () => { await w?.v.stop(); });

  it('[S2.4.3-15] [S2.4.3-18] [S2.9-01] [S2.9-02] [S2.9-05] the signed export validates against the schema served for major 1; another major is not served', async () => {
    const schema = await w.v.request('GET', '/schemas/project-export/1', { token: w.admin });
    expect(schema.status).to.equal(200);
    expect(schema.headers.get('content-type')).to.match(/^application\/schema\+json/);
    expect((await w.v.request('GET', '/schemas/project-export/2', { token: w.admin })).status).to.equal(404);
    const answer = await fetchBytes(w.v, `/projects/${w.projectId}/export`, w.admin);
    expect(answer.status).to.equal(200);
    const doc = JSON.parse(answer.bytes.toString('utf8'));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema.body);
    expect(validate(doc), JSON.stringify(validate.errors)).to.equal(true);
    expect(doc).to.include({ schema: 'vigil-project-export', version: '1.1' });
    expect(doc.project).to.deep.equal({ id: w.projectId, name: 'Checkout', solution: { id: w.solutionId, name: 'Shop' } });
    expect(doc.targets.map((t: any) => t.id)).to.deep.equal([w.repo, w.other]);
    expect(doc.issues.find((i: any) => i.id === w.issues.will_not_fix)).to.include({ triageStatus: 'will_not_fix', vexSituation: 'will_not_fix' });
    expect(doc.inventory.find((c: any) => c.purl === 'pkg:npm/left-pad@1.0.0').sources).to.deep.equal(['scanner']);
    expect(await verifyWithOpenssl(w.v, { headers: answer.headers } as never, answer.bytes)).to.equal('Verified OK');
  });

  it('[S2.6-64] [S2.6-81] each download is audited ProjectExported with SIEM VGL-SEC-032, the SHA-256 first in the message', async () => {
    const answer = await fetchBytes(w.v, `/projects/${w.projectId}/export`, w.admin);
    const sha256 = createHash('sha256').update(answer.bytes).digest('hex');
    const events = await w.v.database.db.knex('events').where({ stream_id: `project-exports-${w.projectId}` }).orderBy('position');
    const last = JSON.parse(events[events.length - 1].data);
    expect(events[events.length - 1].type).to.equal('ProjectExported');
    expect(last).to.deep.include({ projectId: w.projectId, sha256, size: answer.bytes.length, version: '1.1' });
    expect(last.siem).to.include({ signature: 'VGL-SEC-032', severity: 4 });
    expect(last.siem.message.startsWith(`${sha256} `)).to.equal(true);
    expect(last.targets).to.deep.equal([{ kind: 'repository', id: w.repo }, { kind: 'repository', id: w.other }]);
    const audit = await w.v.database.db.knex('audit_log').where({ stream_id: `project-exports-${w.projectId}` });
    expect(audit.length).to.equal(events.length);
  });

  it('[S2.6-64] VGL-SEC-032: the download is queued in the SIEM outbox and reaches the collector, the SHA-256 first in msg', async () => {
    const tcp = await tcpReceiver();
    try {
      expect((await w.v.request('PATCH', '/settings', { token: w.admin, body: { siem_allow_private_destination: true } })).status).to.equal(200);
      expect((await w.v.request('PUT', '/siem/config', { token: w.admin, body: { enabled: true, protocol: 'syslog_tcp', endpoint: tcp.endpoint, minimumSeverity: 'low' } })).status).to.equal(200);
      const answer = await fetchBytes(w.v, `/projects/${w.projectId}/export`, w.admin);
      const sha256 = createHash('sha256').update(answer.bytes).digest('hex');
      const row = await w.v.database.db.knex('siem_outbox').where({ signature: 'VGL-SEC-032' }).orderBy('position', 'desc').first();
      expect(row).to.include({ severity: 4, act: 'PROJECT_EXPORTED', target: `project:${w.projectId}` });
      await w.v.services.siemDeliverer.drain();
      const frame = await until(() => tcp.frames.find((f) => f.includes(`externalId=${row.event_id}`)));
      expect(frame).to.contain(`|VGL-SEC-032|Project export left the platform|4|`);
      expect(frame).to.contain(` msg=${sha256} project ${w.projectId} `);
    } finally {
      await w.v.request('PUT', '/siem/config', { token: w.admin, body: { enabled: false, protocol: 'syslog_tcp', endpoint: tcp.endpoint } });
      await tcp.close();
    }
  });

  it('somebody who sees only some targets of the project, or nothing of it, is answered 404 and nothing is written', async () => {
    const partial = await w.v.account(['reader']);
    const team = await w.v.request('POST', '/teams', { token: w.admin, body: { name: 'partial' } });
    await w.v.request('POST', `/teams/${team.body.id}/members`, { token: w.admin, body: { accountId: partial.id } });
    await w.v.request('POST', `/teams/${team.body.id}/grants`, { token: w.admin, body: { kind: 'repository', id: w.repo } });
    const stranger = await w.v.account(['reader']);
    const before = await w.v.eventCount();
    expect((await w.v.request('GET', `/projects/${w.projectId}/export`, { token: partial.token })).status).to.equal(404);
    expect((await w.v.request('GET', `/projects/${w.projectId}/export`, { token: stranger.token })).status).to.equal(404);
    expect((await w.v.request('GET', '/projects/999/export', { token: w.admin })).status).to.equal(404);
    expect(await w.v.eventCount()).to.equal(before);
    await w.v.request('POST', `/teams/${team.body.id}/grants`, { token: w.admin, body: { kind: 'project', id: w.projectId } });
    expect((await w.v.request('GET', `/projects/${w.projectId}/export`, { token: partial.token })).status).to.equal(200);
  });
});
