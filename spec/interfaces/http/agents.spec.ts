import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { credentialBinding } from '../../../domain/agents/attestation';
import { openSealed, signingKeyFrom } from '../../../infrastructure/crypto/agent-keys';
import { ControlPlaneClient } from '../../../interfaces/cli/agent/client';
import { FakeNormaliser } from '../../application/scans/fakes';
import { eventLogText, newEncryptionKey } from '../../support/credentials';
import { RunningVigil, startVigil } from '../../support/vigil';

/**
 * The control plane's side of the agent protocol over HTTP (spec 1 §2.7, §3.3, §4.7), with the
 * vigil-agent program's own client (interfaces/cli/agent/client.ts) as the agent. No built-in worker
 * runs (no executor bound): scans wait for agents.
 */
describe('Agents over HTTP (interfaces/http/routes/agents.ts)', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  const secret = `vigil-agent-test-${randomBytes(8).toString('hex')}`;

  const agentKey = async () => (await v.key(admin, { name: `agent-${randomBytes(3).toString('hex')}`, scopes: ['agent'] })).key;
  const repository = async (over: Record<string, unknown> = {}) => {
    const r = await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/${randomBytes(4).toString('hex')}/app`, scanManualOnly: true, ...over } });
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };
  const requestScan = async (repo: number) => {
    const r = await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} });
    expect(r.status, r.text).to.equal(200);
    return r.body.id as number;
  };
  const scanOf = async (id: number) => (await v.request('GET', `/scans/${id}`, { token: admin })).body.scan;
  const agent = async (options: { signing?: nacl.SignKeyPair | null; mode?: 'local' | 'delegated'; version?: string; key?: string } = {}) => {
    const client = new ControlPlaneClient(v.url, options.key ?? (await agentKey()), options.signing ?? null);
    const hello = await client.hello({ version: options.version ?? '0.11.0', mode: options.mode ?? 'local', labels: ['linux'] });
    expect(hello.status, JSON.stringify(hello.body)).to.equal(200);
    return client;
  };
  const result = { artifacts: { sbom: { tool: 'syft', toolVersion: '1.0', output: [] }, secrets: { tool: 'gitleaks', toolVersion: '8', output: [{ ruleId: 'aws-key', path: 'a.txt' }] } }, languages: ['Python'], duration: 42 };

  before(async () => {
    v = await startVigil({ env: { ENCRYPTION_KEY: newEncryptionKey(), VIGIL_EMBEDDED_WORKER: 'false' }, overrides: { scanExecutor: null, normaliser: new FakeNormaliser() } });
    admin = await v.signIn();
  });
  after(async () => { await v?.stop(); });

  it('[S1.2.7-01] [S1.2.7-02] [S1.2.7-08] the first hello creates the agent row: local, max_concurrent 1, online, results unsigned', async () => {
    const client = await agent();
    const list = await v.request('GET', '/admin/agents', { token: admin });
    expect(list.status).to.equal(200);
    const row = list.body.find((a: { id: number }) => a.id === client.agentId);
    expect(row).to.deep.include({ mode: 'local', maxConcurrent: 1, status: 'online', load: 0, labels: ['linux'], version: '0.11.0', attestation: 'Results unsigned', credentialState: 'No verified sealing key: credentials withheld' });
  });

  it('[S1.5-01] agent routes take an agent key only; an agent key reaches nothing else', async () => {
    const client = await agent();
    expect((await v.request('GET', '/agent/jobs', { token: admin })).status).to.equal(403);
    const readKey = (await v.key(admin, { name: 'reader', scopes: ['read'] })).key;
    expect((await v.request('GET', '/agent/jobs', { token: readKey })).status).to.equal(403);
    const key = (client as unknown as { token: string }).token;
    expect((await v.request('GET', '/scans', { token: key })).status).to.equal(403);
    expect((await v.request('GET', '/admin/agents', { token: key })).status).to.equal(403);
  });

  it('[S1.2.7-03] max_concurrent outside 1..16 is 400 and writes nothing; an unknown agent is 404', async () => {
    const client = await agent();
    const before = await v.eventCount();
    for (const n of [0, 17]) expect((await v.request('PATCH', `/admin/agents/${client.agentId}`, { token: admin, body: { max_concurrent: n } })).status).to.equal(400);
    expect((await v.request('PATCH', '/admin/agents/999999', { token: admin, body: { max_concurrent: 2 } })).status).to.equal(404);
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.4.7-01] [S1.4.7-15] [S1.4.7-18] [S1.4.7-04] [S1.4.7-05] [S1.6-08] a poll claims up to the limit and carries max_concurrent; a result with duration in seconds completes the scan', async () => {
    const client = await agent();
    const empty = await client.poll(0, 1);
    expect(empty.status).to.equal(200);
    expect(empty.body).to.deep.include({ maxConcurrent: 1, jobs: [] });
    const first = await requestScan(await repository());
    const second = await requestScan(await repository());
    const polled = await client.poll(0, 4);
    expect(polled.body.jobs.map((j: { id: number }) => j.id)).to.deep.equal([first]);
    expect(polled.body.jobs[0]).to.deep.include({ attempt: 1 });
    expect(polled.body.jobs[0].target).to.include({ kind: 'repository', branch: 'main' });
    expect((await client.poll(0, 4)).body.jobs, 'at its limit, nothing more').to.deep.equal([]);
    expect((await client.renew(first, 1)).status).to.equal(200);
    const done = await client.result(first, 1, result);
    expect(done.status, JSON.stringify(done.body)).to.equal(200);
    expect(await scanOf(first)).to.deep.include({ status: 'completed', duration: 'PT42S', worker: `agent:${client.agentId}` });
    const submitted = (await v.services.store.readStream('agent-reports')).at(-1)!;
    expect(submitted.type).to.equal('AgentResultSubmitted');
    expect(submitted.data).to.deep.include({ scanId: first, attempt: 1, audit: 'AGENT_RESULT_SUBMITTED' });
    expect((submitted.data as { description: string }).description).to.contain((submitted.data as { acceptedAt: string }).acceptedAt);
    // One unit of work: the audit record and the result's ScanCompleted are in one commit (one transaction id).
    const completed = (await v.services.store.readStream(`scan-${first}`)).find((e) => e.type === 'ScanCompleted')!;
    expect(String(submitted.cursor.commit), "AGENT_RESULT_SUBMITTED commits with the result").to.equal(String(completed.cursor.commit));
    expect((await client.poll(0, 4)).body.jobs.map((j: { id: number }) => j.id)).to.deep.equal([second]);
    const iso = await client.result(second, 1, { ...result, duration: 'PT1M2.5S' });
    expect(iso.status).to.equal(200);
    expect((await scanOf(second)).duration).to.equal('PT1M2.5S');
  });

  it('[S1.4.7-23] a repeated or stale failure report is 409 and writes nothing; a repeated result too', async () => {
    const client = await agent();
    const id = await requestScan(await repository());
    expect((await client.poll(0, 1)).body.jobs).to.have.length(1);
    expect((await client.result(id, 1, result)).status).to.equal(200);
    const before = await v.eventCount();
    expect((await client.failure(id, 1, 'too late', 'transient')).status).to.equal(409);
    expect((await client.failure(id, 2, 'never ran', 'transient')).status).to.equal(409);
    expect((await client.result(id, 1, result)).status).to.equal(409);
    expect((await client.renew(id, 1)).status).to.equal(409);
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.4.7-07] [S1.4.7-08] [S1.4.7-09] a failure is one line of at most 1,000 characters, scrubbed on arrival; a missing kind reads transient', async () => {
    const client = await agent();
    const id = await requestScan(await repository());
    await client.poll(0, 1);
    const before = await v.eventCount();
    const long = await (client as any).report('failure', id, 1, Buffer.from(JSON.stringify({ attempt: 1, reason: 'x'.repeat(1001) })));
    expect(long.status).to.equal(400);
    const twoLines = await (client as any).report('failure', id, 1, Buffer.from(JSON.stringify({ attempt: 1, reason: 'a\nb' })));
    expect(twoLines.status).to.equal(400);
    expect(await v.eventCount()).to.equal(before);
    const noKind = await (client as any).report('failure', id, 1, Buffer.from(JSON.stringify({ attempt: 1, reason: `clone refused: password=${secret}` })));
    expect(noKind.status, JSON.stringify(noKind.body)).to.equal(200);
    expect(noKind.body.outcome).to.equal('retry');
    const scan = await scanOf(id);
    expect(scan).to.deep.include({ status: 'pending', attempts: 1 });
    expect(scan.lastError).to.equal('clone refused: password=***');
    expect(await eventLogText(v)).not.to.contain(secret);
  });

  it('[S1.4.7-11] [S1.4.7-12] [S1.4.7-21] [S1.4.7-22] [S1.6-09] with a signing key pinned, an unsigned or forged report is 403, audited AGENT_RESULT_REFUSED (VGL-SEC-015); a signed one is taken', async () => {
    const client0 = await agent();
    const pinned = await v.request('PUT', `/admin/agents/${client0.agentId}/signing-key`, { token: admin, body: { publicKey: 'generate' } });
    expect(pinned.status, pinned.text).to.equal(200);
    expect(pinned.body).to.include({ attestation: 'Results attested' });
    expect(pinned.body.privateKey).to.be.a('string');
    const key = (client0 as unknown as { token: string }).token;
    const unsigned = client0;
    const forged = await agent({ key, signing: nacl.sign.keyPair() });
    const honest = await agent({ key, signing: signingKeyFrom(pinned.body.privateKey) });
    const id = await requestScan(await repository());
    expect((await honest.poll(0, 1)).body.jobs).to.have.length(1);
    for (const [who, c] of [['unsigned', unsigned], ['forged', forged]] as const) {
      const before = await v.eventCount();
      const r = await c.result(id, 1, result);
      expect(r.status, who).to.equal(403);
      expect(await v.eventCount(), `${who}: only the refusal is recorded`).to.equal(before + 1);
      expect((await c.failure(id, 1, 'x', 'permanent')).status, who).to.equal(403);
    }
    const refusals = await v.services.store.readStream('agent-refusals');
    expect(refusals.at(-1)).to.deep.include({ type: 'AgentResultRefused' });
    expect(refusals.at(-1)!.data).to.deep.include({ audit: 'AGENT_RESULT_REFUSED', siem: { signature: 'VGL-SEC-015', name: 'Agent result refused' }, scanId: id });
    expect((await scanOf(id)).status).to.equal('scanning');
    expect((await honest.result(id, 1, result)).status).to.equal(200);
    expect(await v.request('PUT', `/admin/agents/${client0.agentId}/signing-key`, { token: admin, body: { publicKey: 'not-a-key' } })).to.have.property('status', 400);
  });

  it('[S1.4.7-03] [S1.4.7-14] [S1.4.7-25] [S1.4.7-28] [S1.4.7-30] only credential-bearing scans wait: 412 without a verified sealing key; the token arrives sealed to it, bound to host and user', async () => {
    const signing = nacl.sign.keyPair();
    const client = await agent({ signing, mode: 'delegated' });
    const token = await v.request('POST', '/credentials/https-tokens', { token: admin, body: { name: `ci-${randomBytes(3).toString('hex')}`, host: 'git.example', username: 'oauth2', token: secret } });
    expect(token.status, token.text).to.equal(201);
    const id = await requestScan(await repository({ httpsTokenId: token.body.id }));
    expect((await client.poll(0, 1)).status).to.equal(412);
    const backlog = await v.request('GET', '/admin/agents/credentialed-backlog', { token: admin });
    expect(backlog.body.scans.map((s: { id: number }) => s.id)).to.include(id);
    await v.request('PUT', `/admin/agents/${client.agentId}/signing-key`, { token: admin, body: { publicKey: Buffer.from(signing.publicKey).toString('base64') } });
    // An agent older than 0.11.0 is handed nothing even with a verified key.
    const old = await agent({ key: (client as unknown as { token: string }).token, signing, mode: 'delegated', version: '0.10.3' });
    const box = nacl.box.keyPair();
    expect((await old.announceSealingKey(box.publicKey, new Date(Date.now() - 1000).toISOString())).status).to.equal(200);
    expect((await old.poll(0, 1)).status).to.equal(412);
    await client.hello({ version: '0.11.0', mode: 'delegated', labels: [] });
    const polled = await client.poll(0, 1);
    expect(polled.status, JSON.stringify(polled.body)).to.equal(200);
    const job = polled.body.jobs[0];
    expect(job.id).to.equal(id);
    expect(job.credential).to.include({ kind: 'https_token', host: 'git.example', username: 'oauth2' });
    expect(JSON.stringify(polled.body)).not.to.contain(secret);
    const opened = openSealed(job.credential.sealed, box, credentialBinding(id, 1, { kind: 'https_token', host: 'git.example', username: 'oauth2' }));
    expect(Buffer.from(opened!).toString()).to.equal(secret);
    expect(openSealed(job.credential.sealed, box, credentialBinding(id, 1, { kind: 'https_token', host: 'evil.example', username: 'oauth2' })), 'bound to its host').to.equal(null);
    expect(await eventLogText(v)).not.to.contain(secret);
    const signed = new ControlPlaneClient(v.url, (client as unknown as { token: string }).token, signing);
    signed.agentId = client.agentId;
    expect((await signed.result(id, 1, result)).status).to.equal(200);
  });

  it('[S1.4.7-27] [S1.4.7-26] [S1.6-10] a sealing key with a bad signature is 403 (AGENT_SEALING_KEY_REFUSED, VGL-SEC-020); the newest wins, an older one is 409; DELETE withdraws it (S1.3.3-07)', async () => {
    const signing = nacl.sign.keyPair();
    const client = await agent({ signing, mode: 'delegated' });
    expect((await client.announceSealingKey(nacl.box.keyPair().publicKey, new Date().toISOString())).status, 'no signing key pinned yet').to.equal(409);
    await v.request('PUT', `/admin/agents/${client.agentId}/signing-key`, { token: admin, body: { publicKey: Buffer.from(signing.publicKey).toString('base64') } });
    const impostor = new ControlPlaneClient(v.url, (client as unknown as { token: string }).token, nacl.sign.keyPair());
    impostor.agentId = client.agentId;
    expect((await impostor.announceSealingKey(nacl.box.keyPair().publicKey, new Date().toISOString())).status).to.equal(403);
    const refusals = await v.services.store.readStream('agent-refusals');
    expect(refusals.at(-1)!.data).to.deep.include({ audit: 'AGENT_SEALING_KEY_REFUSED', siem: { signature: 'VGL-SEC-020', name: 'Agent sealing key refused' } });
    const accepted = await client.announceSealingKey(nacl.box.keyPair().publicKey, '2026-11-25T10:00:00.000Z');
    expect(accepted.status).to.equal(200);
    expect(accepted.body).to.include({ sealingKeyVerified: true, credentialState: 'Sealed end to end (verified sealing key)' });
    expect((await client.announceSealingKey(nacl.box.keyPair().publicKey, '2026-11-25T09:00:00.000Z')).status).to.equal(409);
    const deleted = await v.request('DELETE', `/admin/agents/${client.agentId}/sealing-key`, { token: admin });
    expect(deleted.body).to.include({ sealingKeyVerified: false, credentialState: 'No verified sealing key: credentials withheld' });
    expect((await client.announceSealingKey(nacl.box.keyPair().publicKey, '2026-11-25T10:00:01.000Z')).body).to.include({ sealingKeyVerified: true });
  });

  it('[S1.4.7-02] [S1.4.7-19] a long poll is answered when a scan arrives; two agents polling at once never claim one scan twice', async () => {
    const a = await agent();
    const b = await agent();
    const polls = [a.poll(5, 1), b.poll(5, 1)];
    await new Promise((r) => setTimeout(r, 200));
    const id = await requestScan(await repository());
    const first = await Promise.race(polls);
    const both = await Promise.all(polls);
    const claimed = both.flatMap((p) => p.body.jobs.map((j: { id: number }) => j.id));
    expect(claimed).to.deep.equal([id]);
    expect(first.status).to.equal(200);
  });

  it('[S1.4.7-17] a lowered limit applies to the next claim and interrupts nothing', async () => {
    const client = await agent();
    await v.request('PATCH', `/admin/agents/${client.agentId}`, { token: admin, body: { max_concurrent: 3 } });
    const ids = [await requestScan(await repository()), await requestScan(await repository()), await requestScan(await repository())];
    expect((await client.poll(0, 3)).body.jobs.map((j: { id: number }) => j.id)).to.deep.equal(ids);
    const patched = await v.request('PATCH', `/admin/agents/${client.agentId}`, { token: admin, body: { max_concurrent: 1 } });
    expect(patched.body.maxConcurrent).to.equal(1);
    const extra = await requestScan(await repository());
    expect((await client.poll(0, 3)).body).to.deep.include({ maxConcurrent: 1, jobs: [] });
    for (const id of ids) expect((await client.renew(id, 1)).status, 'running scans go on').to.equal(200);
    await client.result(ids[0], 1, result);
    await client.result(ids[1], 1, result);
    expect((await client.poll(0, 3)).body.jobs, 'still one running: at the limit').to.deep.equal([]);
    await client.result(ids[2], 1, result);
    expect((await client.poll(0, 3)).body.jobs.map((j: { id: number }) => j.id)).to.deep.equal([extra]);
  });

  it('[S1.2.1-20] requiredAgentId names an existing agent and requiredLabels are bounded labels (400 otherwise, nothing written); GET shows them; PATCH clears them', async () => {
    const pinnedTo = await agent();
    const before = await v.database.db.knex('repositories').count({ n: '*' }).first();
    const refused = async (body: Record<string, unknown>) => {
      const r = await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/${randomBytes(4).toString('hex')}/pinned`, scanManualOnly: true, ...body } });
      expect(r.status, r.text).to.equal(400);
      expect(r.headers.get('content-type')).to.contain('application/problem+json');
    };
    await refused({ requiredAgentId: 987654 });
    await refused({ requiredLabels: ['has space'] });
    await refused({ requiredLabels: ['bell\u0007'] });
    await refused({ requiredLabels: ['x'.repeat(65)] });
    await refused({ requiredLabels: Array.from({ length: 33 }, (_, i) => `l${i}`) });
    expect((await v.database.db.knex('repositories').count({ n: '*' }).first())!.n, 'nothing written').to.equal(before!.n);
    const id = await repository({ requiredAgentId: pinnedTo.agentId, requiredLabels: ['linux', 'dmz'] });
    const shown = (await v.request('GET', `/repositories/${id}`, { token: admin })).body;
    expect(shown).to.deep.include({ requiredAgentId: pinnedTo.agentId, requiredLabels: ['dmz', 'linux'] });
    const bad = await v.request('PATCH', `/repositories/${id}`, { token: admin, body: { requiredAgentId: 987654 } });
    expect(bad.status, bad.text).to.equal(400);
    expect((await v.request('GET', `/repositories/${id}`, { token: admin })).body.requiredAgentId, 'a refused PATCH changes nothing').to.equal(pinnedTo.agentId);
    const cleared = await v.request('PATCH', `/repositories/${id}`, { token: admin, body: { requiredAgentId: null, requiredLabels: [] } });
    expect(cleared.status, cleared.text).to.equal(200);
    expect(cleared.body).to.deep.include({ requiredAgentId: null, requiredLabels: [] });
    const image = await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/placement/app:1', scanManualOnly: true, requiredLabels: ['gpu'] } });
    expect(image.status, image.text).to.equal(201);
    expect(image.body).to.deep.include({ requiredAgentId: null, requiredLabels: ['gpu'] });
    await v.request('DELETE', `/containers/${image.body.id}`, { token: admin });
  });

  it('[S1.2.1-20] [S1.8.3-42] a pinned target is claimed by its agent only; required labels must all be carried, by an agent or the built-in worker', async () => {
    const a = await agent(); // labels ['linux']
    const b = await agent();
    for (const c of [a, b]) await v.request('PATCH', `/admin/agents/${c.agentId}`, { token: admin, body: { max_concurrent: 16 } });
    const pinned = await requestScan(await repository({ requiredAgentId: a.agentId }));
    const needsDmz = await requestScan(await repository({ requiredLabels: ['dmz', 'linux'] }));
    const needsLinux = await requestScan(await repository({ requiredLabels: ['linux'] }));
    const ids = (r: { body: { jobs: Array<{ id: number }> } }) => r.body.jobs.map((j) => j.id);
    const viaB = ids(await b.poll(0, 16));
    expect(viaB, 'another agent never claims a pinned scan').to.not.include(pinned);
    expect(viaB, 'an agent without dmz does not claim a scan requiring dmz and linux').to.not.include(needsDmz);
    expect(viaB, 'an agent carrying linux claims a scan requiring linux').to.include(needsLinux);
    const viaA = ids(await a.poll(0, 16));
    expect(viaA).to.include(pinned).and.not.include(needsDmz);
    // The built-in worker's claim (the same lifecycle; VIGIL_WORKER_LABELS are its labels): with dmz and linux it takes the scan.
    const lacking = await v.services.scanLifecycle.claim({ worker: 'embedded:spec-a', holdsCredentials: true, labels: ['linux'] }, 16);
    expect(lacking.map((c) => c.scanId)).to.not.include(needsDmz);
    const carrying = await v.services.scanLifecycle.claim({ worker: 'embedded:spec-b', holdsCredentials: true, labels: ['dmz', 'linux', 'x86'] }, 16);
    expect(carrying.map((c) => c.scanId)).to.include(needsDmz);
    for (const c of carrying) await v.services.scanLifecycle.complete(c, { artifacts: {}, languages: [], languagesBounded: false, duration: 'PT1S' });
    for (const id of viaA) await a.result(id, 1, result);
    for (const id of viaB) await b.result(id, 1, result);
  });

  it('[S1.2.1-20] a pinned image is not claimed by the built-in worker, which carries no agent', async () => {
    const a = await agent();
    const image = await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/placement/pinned:1', scanManualOnly: true, requiredAgentId: a.agentId } });
    expect(image.status, image.text).to.equal(201);
    const scan = (await v.request('POST', `/containers/${image.body.id}/scan`, { token: admin, body: {} })).body.id as number;
    const worker = await v.services.scanLifecycle.claim({ worker: 'embedded:spec-c', holdsCredentials: true, labels: [] }, 16);
    expect(worker.map((c) => c.scanId)).to.not.include(scan);
    for (const c of worker) await v.services.scanLifecycle.complete(c, { artifacts: {}, languages: [], languagesBounded: false, duration: 'PT1S' });
    const jobs = (await a.poll(0, 1)).body.jobs as Array<{ id: number }>;
    expect(jobs.map((j) => j.id)).to.deep.equal([scan]);
    await a.result(scan, 1, result);
  });
});
