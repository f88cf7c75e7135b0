import { expect } from 'chai';
import { corpusAvailable, requireCorpus } from '../../support/corpus';
import { RunningVigil, startVigil } from '../../support/vigil';
import { readCorpus, readManifest, verdictOfNote } from '../../parsers/support';
import { DECISIONS, independent } from '../../parsers/sarif-decisions';

type Json = Record<string, any>;

/** A declared source for a repository, with its key: what every import test starts from. */
async function declared(v: RunningVigil, admin: string, options: { tools?: string[]; kinds?: string[]; slug?: string; scopes?: string[]; repositoryId?: number } = {}) {
  const repositoryId = options.repositoryId ?? (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/sarif/${Math.random().toString(36).slice(2)}` } })).body.id;
  const key = await v.key(admin, { name: 'pipeline', scopes: options.scopes ?? ['sarif_import', 'report_import', 'read'] });
  const governor = await v.account(['platform_governor']);
  const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: {
    slug: options.slug ?? `ci-${Math.random().toString(36).slice(2, 8)}`, name: 'CI', api_key_id: key.id, repository_id: repositoryId,
    kinds: options.kinds ?? ['sarif'], ...(options.kinds && !options.kinds.includes('sarif') ? {} : { tools: options.tools ?? ['Tool'] }),
  } });
  expect(source.status, source.text).to.equal(201);
  return { repositoryId, key: key.key, keyId: key.id, governor, slug: source.body.slug as string };
}

function sarif(runs: Array<{ tool?: string; version?: string; results: Json[] }>): string {
  return JSON.stringify({ version: '2.1.0', runs: runs.map((r) => ({ tool: { driver: { name: r.tool ?? 'Tool', version: r.version ?? '1.0' } }, results: r.results })) });
}
const finding = (rule: string, path: string, line = 1, extra: Json = {}) => ({
  ruleId: rule, level: 'error', message: { text: `${rule} in ${path}` }, locations: [{ physicalLocation: { artifactLocation: { uri: path }, region: { startLine: line } } }], ...extra,
});

describe('SARIF imports over HTTP', function () {
  let v: RunningVigil;
  let admin: string;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  const upload = (repositoryId: number, key: string | null, body: string | Buffer, extra: { token?: string; contentType?: string } = {}) =>
    v.request('POST', `/repositories/${repositoryId}/sarif-imports`, { apiKey: key ?? undefined, token: extra.token, raw: body, contentType: extra.contentType ?? 'application/sarif+json' });

  it('[S1.4.3-01] [S1.2.6-01] accepts a log: 201 with resultsCount, createdCount, resolvedCount, reopenedCount, tools and sha256', async () => {
    const s = await declared(v, admin);
    const body = sarif([{ version: '1,2', results: [finding('R1', 'src/a.ts', 3), finding('R1', 'src/a.ts', 9), finding('R2', 'src/b.ts')] }]);
    const r = await upload(s.repositoryId, s.key, body);
    expect(r.status, r.text).to.equal(201);
    expect(r.body).to.include({ resultsCount: 3, createdCount: 2, resolvedCount: 0, reopenedCount: 0 });
    expect(r.body.tools).to.deep.equal(['Tool 1;2']);
    expect(r.body.sha256).to.match(/^[0-9a-f]{64}$/);
    const issues = await v.request('GET', `/issues?repository_id=${s.repositoryId}`, { token: admin });
    expect(issues.body).to.have.length(2);
    expect(issues.body[0].provenance).to.include({ type: 'imported', source: s.slug, toolName: 'Tool', toolVersion: '1,2' });
    const history = await v.request('GET', `/repositories/${s.repositoryId}/sarif-imports`, { token: admin });
    expect(history.body[0]).to.include({ id: r.body.id, createdCount: 2, source: s.slug, sha256: r.body.sha256 });
  });

  it('re-importing the same document creates nothing; a later report resolves exactly that tool\'s missing issue', async () => {
    const s = await declared(v, admin, { tools: ['Tool', 'Other'] });
    const both = sarif([{ results: [finding('R1', 'a.py'), finding('R2', 'b.py')] }, { tool: 'Other', results: [finding('X', 'c.py')] }]);
    expect((await upload(s.repositoryId, s.key, both)).body).to.include({ createdCount: 3 });
    expect((await upload(s.repositoryId, s.key, both)).body).to.include({ createdCount: 0, resolvedCount: 0, reopenedCount: 0 });
    const later = await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1', 'a.py')] }]));
    expect(later.body).to.include({ createdCount: 0, resolvedCount: 1, reopenedCount: 0 });
    const open = await v.request('GET', `/issues?repository_id=${s.repositoryId}&status=open`, { token: admin });
    expect(open.body.map((i: Json) => i.ruleId).sort()).to.deep.equal(['R1', 'X']);
    const back = await upload(s.repositoryId, s.key, both);
    expect(back.body).to.include({ createdCount: 0, resolvedCount: 0, reopenedCount: 1 });
  });

  it('[S1.2.3-05] renaming the rule or moving the file resolves the old issue and creates a new one; the line never matters', async () => {
    const s = await declared(v, admin);
    await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1', 'a.py', 1)] }]));
    expect((await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1', 'a.py', 50)] }]))).body).to.include({ createdCount: 0, resolvedCount: 0 });
    expect((await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1-renamed', 'a.py')] }]))).body).to.include({ createdCount: 1, resolvedCount: 1 });
    expect((await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1-renamed', 'moved/a.py')] }]))).body).to.include({ createdCount: 1, resolvedCount: 1 });
  });

  it('renaming the tool or the slug makes new issues: the identity carries import:<slug>/<tool> in lowercase', async () => {
    const s = await declared(v, admin, { tools: ['Tool', 'tool2'] });
    await upload(s.repositoryId, s.key, sarif([{ tool: 'TOOL', results: [finding('R1', 'a.py')] }]));
    expect((await upload(s.repositoryId, s.key, sarif([{ tool: 'tool', results: [finding('R1', 'a.py')] }]))).body).to.include({ createdCount: 0 });
    const other = await upload(s.repositoryId, s.key, sarif([{ tool: 'tool2', results: [finding('R1', 'a.py')] }]));
    expect(other.body).to.include({ createdCount: 1, resolvedCount: 0 });
    const issues = await v.request('GET', `/issues?repository_id=${s.repositoryId}`, { token: admin });
    expect(issues.body.map((i: Json) => i.provenance.toolKey).sort()).to.deep.equal([`import:${s.slug}/tool`, `import:${s.slug}/tool2`]);
  });

  describe('refusals (spec 1 §7 import table): the status, and nothing written but the audit entry', () => {
    let s: Awaited<ReturnType<typeof declared>>;
    before(async () => { s = await declared(v, admin); });

    const refused = async (r: Promise<{ status: number; body: Json }>, status: number, audited: boolean) => {
      const before = await v.eventCount();
      const answer = await r;
      expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
      expect(answer.body.detail).to.be.a('string');
      expect(await v.eventCount()).to.equal(before + (audited ? 1 : 0));
      return answer;
    };

    it('[S1.7-14] a session, not an integration key: 403', async () => {
      await refused(upload(s.repositoryId, null, sarif([{ results: [] }]), { token: admin }), 403, true);
    });

    it('[S1.7-15] a key with no enabled source: 403, audited VGL-SEC-023', async () => {
      const { key } = await v.key(admin, { name: 'stray', scopes: ['sarif_import'] });
      await refused(upload(s.repositoryId, key, sarif([{ results: [] }])), 403, true);
      const refusal = await v.database.db.knex('events').where({ type: 'SarifImportRefused' }).orderBy('position', 'desc').first();
      expect(JSON.parse(refusal.data).siem).to.deep.equal({ signature: 'VGL-SEC-023' });
    });

    it('a key without scope sarif_import: 403 naming the scope', async () => {
      const t = await declared(v, admin, { scopes: ['read', 'report_import'] });
      const r = await refused(upload(t.repositoryId, t.key, sarif([{ results: [] }])), 403, true);
      expect(r.body.detail).to.contain('sarif_import');
    });

    it('[S1.5-12] a key issued by an auditor: 403 (an auditor cannot hold the scope; an account made auditor later is refused at import)', async () => {
      const auditor = await v.account(['auditor']);
      expect((await v.request('POST', '/api-keys', { token: auditor.token, body: { name: 'x', scopes: ['sarif_import'] } })).status).to.equal(403);
      const writer = await v.account(['writer']);
      const repositoryId = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/sarif/auditor' } })).body.id;
      const { key, id } = await v.key(writer.token, { name: 'pipeline', scopes: ['sarif_import'] });
      const governor = await v.account(['platform_governor']);
      await v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'audited', name: 'A', api_key_id: id, repository_id: repositoryId, tools: ['Tool'] } });
      await v.request('PATCH', `/accounts/${writer.id}`, { token: admin, body: { roles: ['auditor'] } });
      const r = await refused(upload(repositoryId, key, sarif([{ results: [] }])), 403, true);
      expect(r.body.detail).to.match(/auditor/);
    });

    it('[S1.7-16] a run naming a tool the source does not declare: 403', async () => {
      const r = await refused(upload(s.repositoryId, s.key, sarif([{ tool: 'Intruder', results: [] }])), 403, true);
      expect(r.body.detail).to.contain('Intruder');
    });

    it('[S1.7-19] [S1.7-13] a repository unseen or outside the source\'s scope: 404, the answer of an unknown one', async () => {
      const elsewhere = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/sarif/elsewhere' } })).body.id;
      const outside = await refused(upload(elsewhere, s.key, sarif([{ results: [] }])), 404, false);
      const unknown = await refused(upload(99999, s.key, sarif([{ results: [] }])), 404, false);
      expect(outside.body.title).to.equal(unknown.body.title);
    });

    it('[S1.4.3-19] not SARIF 2.1.0: 400', async () => {
      await refused(upload(s.repositoryId, s.key, JSON.stringify({ version: '2.0.0', runs: [] })), 400, false);
      await refused(upload(s.repositoryId, s.key, 'not json'), 400, false);
    });

    it('[S1.7-20] a link to external content: 400', async () => {
      const doc = JSON.parse(sarif([{ results: [] }]));
      doc.runs[0].externalPropertyFileReferences = { results: [{ location: { uri: 'https://evil.example/x.sarif' } }] };
      await refused(upload(s.repositoryId, s.key, JSON.stringify(doc)), 400, false);
    });

    it('[S1.4.3-24] an absolute, outside, `..` or URL location refuses the whole report', async () => {
      for (const bad of ['/etc/passwd', '../outside.py', 'src/../../x.py', 'https://example.com/a.py', 'file:///home/a.py']) {
        await refused(upload(s.repositoryId, s.key, sarif([{ results: [finding('R', 'ok.py'), finding('R', bad)] }])), 400, false);
      }
    });

    it('[S1.4.3-22] a failed run and a run without results: 400', async () => {
      const doc = JSON.parse(sarif([{ results: [] }]));
      doc.runs[0].invocations = [{ executionSuccessful: false }];
      await refused(upload(s.repositoryId, s.key, JSON.stringify(doc)), 400, false);
      const none = JSON.parse(sarif([{ results: [] }]));
      delete none.runs[0].results;
      await refused(upload(s.repositoryId, s.key, JSON.stringify(none)), 400, false);
    });

    it('[S1.4.3-23] a result without a rule: 400', async () => {
      await refused(upload(s.repositoryId, s.key, sarif([{ results: [{ message: { text: 'no rule' } }] }])), 400, false);
    });

    it('[S1.7-24] [S1.8.1-08] [S1.8.1-13] over 32 MB: 413; 2 MB (over the 1 MB default) is accepted', async () => {
      const big = Buffer.alloc(33 * 1024 * 1024, 0x20);
      await refused(upload(s.repositoryId, s.key, big), 413, false);
      const results = Array.from({ length: 6000 }, (_, i) => finding(`R${i % 7}`, `src/file-${i}.ts`, i, { message: { text: 'x'.repeat(200) } }));
      const two = sarif([{ results }]);
      expect(Buffer.byteLength(two)).to.be.greaterThan(1024 * 1024);
      const r = await upload(s.repositoryId, s.key, two);
      expect(r.status).to.equal(201);
      expect(r.body.createdCount).to.equal(6000);
    });
  });

  describe('sources (spec 1 §2.5, §4.4)', () => {
    it('refuses declaring from a key or by anyone but a platform governor', async () => {
      const { key } = await v.key(admin, { name: 'k', scopes: ['read'] });
      expect((await v.request('POST', '/sarif-sources', { apiKey: key, body: { slug: 'x', name: 'x', api_key_id: 1, repository_id: 1, tools: ['t'] } })).status).to.equal(403);
      expect((await v.request('POST', '/sarif-sources', { token: admin, body: { slug: 'x', name: 'x', api_key_id: 1, repository_id: 1, tools: ['t'] } })).status).to.equal(403);
    });

    it('[S1.2.5-03] refuses both or neither of project_id and repository_id, tools missing with sarif, tools without sarif (400)', async () => {
      const governor = await v.account(['platform_governor']);
      const { id } = await v.key(admin, { name: 'k', scopes: ['sarif_import'] });
      const post = (body: Json) => v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'bad', name: 'Bad', api_key_id: id, ...body } });
      expect((await post({ tools: ['t'] })).status).to.equal(400);
      expect((await post({ tools: ['t'], project_id: 1, repository_id: 1 })).status).to.equal(400);
      expect((await post({ repository_id: 1 })).status).to.equal(400);
      expect((await post({ repository_id: 1, kinds: ['coverage'], tools: ['t'] })).status).to.equal(400);
      expect((await post({ repository_id: 1, kinds: [] })).status).to.equal(400);
    });

    it('[S1.2.5-02] the same slug with a new key rotates the key and continues the backlog', async () => {
      const s = await declared(v, admin, { slug: 'rotating' });
      await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1', 'a.py')] }]));
      const next = await v.key(admin, { name: 'next', scopes: ['sarif_import'] });
      const r = await v.request('POST', '/sarif-sources', { token: s.governor.token, body: { slug: 'rotating', name: 'CI', api_key_id: next.id, repository_id: s.repositoryId, tools: ['Tool'] } });
      expect(r.status).to.equal(201);
      expect(r.body.api_key_id).to.equal(next.id);
      expect((await upload(s.repositoryId, s.key, sarif([{ results: [] }]))).status).to.equal(403);
      expect((await upload(s.repositoryId, next.key, sarif([{ results: [finding('R1', 'a.py')] }]))).body).to.include({ createdCount: 0, resolvedCount: 0 });
    });

    it('one key names one source: 409 for a second slug', async () => {
      const s = await declared(v, admin);
      const r = await v.request('POST', '/sarif-sources', { token: s.governor.token, body: { slug: 'second', name: 'Second', api_key_id: s.keyId, repository_id: s.repositoryId, tools: ['Tool'] } });
      expect(r.status).to.equal(409);
    });

    it('a removed source declared again with another key leaves the key it once held to the source holding it now', async () => {
      const a = await declared(v, admin, { slug: 'was-a' });
      expect((await v.request('DELETE', `/sarif-sources/${a.slug}`, { token: a.governor.token })).status).to.equal(204);
      const b = await v.request('POST', '/sarif-sources', { token: a.governor.token, body: { slug: 'now-b', name: 'B', api_key_id: a.keyId, repository_id: a.repositoryId, tools: ['Tool'] } });
      expect(b.status, b.text).to.equal(201);
      const other = await v.key(admin, { name: 'other', scopes: ['sarif_import'] });
      const again = await v.request('POST', '/sarif-sources', { token: a.governor.token, body: { slug: a.slug, name: 'A', api_key_id: other.id, repository_id: a.repositoryId, tools: ['Tool'] } });
      expect(again.status, again.text).to.equal(201);
      // The key still names now-b: a third source may not take it, and now-b still imports with it.
      const third = await v.request('POST', '/sarif-sources', { token: a.governor.token, body: { slug: 'third', name: 'C', api_key_id: a.keyId, repository_id: a.repositoryId, tools: ['Tool'] } });
      expect(third.status, third.text).to.equal(409);
      expect((await upload(a.repositoryId, a.key, sarif([{ results: [finding('R9', 'z.py')] }]))).status).to.equal(201);
    });

    it('[S1.2.5-05] a disabled source stops imports; a removed one keeps its issues under the slug; a revoked key shows as revoked', async () => {
      const s = await declared(v, admin);
      await upload(s.repositoryId, s.key, sarif([{ results: [finding('R1', 'a.py')] }]));
      expect((await v.request('POST', `/sarif-sources/${s.slug}/disable`, { token: s.governor.token })).body.state).to.equal('disabled');
      expect((await upload(s.repositoryId, s.key, sarif([{ results: [] }]))).status).to.equal(403);
      expect((await v.request('POST', `/sarif-sources/${s.slug}/enable`, { token: s.governor.token })).body.state).to.equal('enabled');
      expect((await v.request('DELETE', `/sarif-sources/${s.slug}`, { token: s.governor.token })).status).to.equal(204);
      const issues = await v.request('GET', `/issues?repository_id=${s.repositoryId}`, { token: admin });
      expect(issues.body[0].provenance.source).to.equal(s.slug);
      await v.request('DELETE', `/api-keys/${s.keyId}`, { token: admin });
      const list = await v.request('GET', '/sarif-sources', { token: s.governor.token });
      expect(list.body.find((x: Json) => x.slug === s.slug)).to.include({ state: 'removed', api_key_state: 'revoked' });
    });
  });

  describe('the real-world corpus through HTTP', function () {
    before(function () { requireCorpus(this.test!.parent!); });
    const rows = corpusAvailable() ? readManifest('sarif/MANIFEST.tsv').map((r) => ({ ...r, file: `sarif/${r.file}` })) : [];
    let s: Awaited<ReturnType<typeof declared>> | undefined;
    const tools = new Set<string>();
    for (const row of rows) {
      const decided = DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`${row.file}: ${verdict === 'accept' ? '201 with counts computed independently' : '400'}`, async () => {
        const body = readCorpus(row.file);
        if (!s) {
          for (const r of rows) {
            try { for (const run of JSON.parse(readCorpus(r.file).toString('utf8').replace(/^\uFEFF/, '')).runs ?? []) tools.add(run.tool?.driver?.name); } catch { /* refused ones */ }
          }
          s = await declared(v, admin, { tools: [...tools].filter(Boolean) });
        }
        const r = await upload(s.repositoryId, s.key, body);
        if (verdict === 'refuse') {
          expect(r.status, r.text).to.equal(400);
          return;
        }
        expect(r.status, r.text).to.equal(201);
        const expected = independent(body.toString('utf8'));
        expect(r.body.resultsCount).to.equal(expected.results);
        expect(r.body.tools).to.deep.equal(expected.tools);
      });
    }
  });
});
