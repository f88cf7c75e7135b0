import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { seedFindings } from '../../../support/backlog';
import { Answer, RunningVigil, startVigil } from '../../../support/vigil';

const ROOT = path.resolve(__dirname, '../../../..');
type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any>; responses: Record<string, any> } };

/** Issue #15: the served OpenAPI document documents every answer, lints clean, and tells the truth. */
describe('the OpenAPI document', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let admin: string;
  let doc: Doc;

  before(async () => {
    v = await startVigil({ env: { VIGIL_API_DOCS_ENABLED: 'true' } });
    admin = await v.signIn();
    const answer = await v.request('GET', '/v3/api-docs', { token: admin });
    expect(answer.status).to.equal(200);
    doc = answer.body;
  });
  after(async () => v?.stop());

  const operations = () => Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${p}`, op })));

  it('[#15] every operation declares its success answer with a schema (204: no body) and its refusals as shared problem+json responses', () => {
    expect(operations().length).to.be.greaterThan(50);
    for (const { name, op } of operations()) {
      const statuses = Object.keys(op.responses).map(Number);
      const successes = statuses.filter((s) => s < 300);
      expect(successes, name).not.to.be.empty;
      for (const s of successes) {
        const content = op.responses[s].content;
        if (s === 204) expect(content, `${name} ${s}`).to.equal(undefined);
        else expect(Object.values(content ?? {}).map((c: any) => c.schema), `${name} ${s} has a schema`).to.have.length(1);
      }
      const refusals = statuses.filter((s) => s >= 400 && !(name === 'GET /health' && s === 503));
      expect(refusals, name).to.include.members([400, 500]);
      for (const s of refusals) {
        const ref = op.responses[s].$ref as string;
        expect(ref, `${name} ${s}`).to.match(/^#\/components\/responses\/\w+$/);
        const shared = doc.components.responses[ref.split('/').pop()!];
        expect(shared.content['application/problem+json'].schema).to.deep.equal({ $ref: '#/components/schemas/Problem' });
      }
      if (op.security?.length) expect(refusals, name).to.include.members([401, 403]);
    }
  });

  it('[#16] every list paged by id declares limit (1 to 1000) and after, and a Link header on its 200', () => {
    for (const p of ['/accounts', '/teams', '/api-keys', '/sarif-sources', '/credentials', '/projects', '/solutions']) {
      const op = doc.paths[p].get;
      const params = Object.fromEntries(op.parameters.filter((x: { in: string }) => x.in === 'query').map((x: { name: string; schema: unknown }) => [x.name, x.schema]));
      expect(params.limit, p).to.deep.include({ type: 'integer', minimum: 1, maximum: 1000 });
      expect(params.after, p).to.deep.include({ type: 'integer', minimum: 0 });
      expect(op.responses[200].headers?.Link?.schema, p).to.deep.equal({ type: 'string' });
    }
    // The backlog pages with after too (and after_key): its Link is documented the same way.
    expect(doc.paths['/issues'].get.responses[200].headers?.Link).to.not.equal(undefined);
  });

  it('[#15] redocly lint (recommended rules, answers as errors; offline) finds no error and no warning', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc, null, 1));
      const run = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'stylish'], {
        cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 16 << 20,
      }).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout, stderr: `${e.stderr}\nexit: failed` }));
      const report = `${run.stdout}\n${run.stderr}`;
      expect(report, report).not.to.contain('exit: failed');
      expect(report, report).to.contain('Your API description is valid');
      expect(report, report).not.to.match(/You have \d+ warnings?|\d+ errors?/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('[#15] real answers (successes and refusals) match the schemas the document declares', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const templates = Object.keys(doc.paths).map((p) => ({ p, re: new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
    let checked = 0;
    const check = async (method: string, url: string, answer: Answer) => {
      const bare = url.replace(/\?.*$/, '');
      const template = templates.filter((t) => t.re.test(bare)).sort((a, b) => b.p.replace(/\{[^}]+\}/g, '').length - a.p.replace(/\{[^}]+\}/g, '').length)[0];
      expect(template, `${method} ${url} is documented`).to.not.equal(undefined);
      const declared = doc.paths[template.p][method.toLowerCase()].responses[answer.status];
      expect(declared, `${method} ${template.p} declares ${answer.status}`).to.not.equal(undefined);
      const response = declared.$ref ? doc.components.responses[declared.$ref.split('/').pop()] : declared;
      if (answer.status === 204) return;
      const [type, media] = Object.entries(response.content)[0] as [string, { schema: unknown }];
      expect(answer.headers.get('content-type'), `${method} ${url}`).to.contain(type);
      if (type !== 'application/json' && type !== 'application/problem+json') return;
      const schema = (media.schema as { $ref?: string }).$ref ? doc.components.schemas.Problem : media.schema;
      const valid = ajv.validate(schema as object, answer.body);
      expect(valid, `${method} ${url} ${answer.status}: ${ajv.errorsText()}\n${answer.text.slice(0, 500)}`).to.equal(true);
      checked++;
    };
    const call = async (method: string, url: string, o: Parameters<RunningVigil['request']>[2] = {}) => {
      const answer = await v.request(method, url, { token: admin, ...o });
      await check(method, url, answer);
      return answer;
    };

    const repo = await call('POST', '/repositories', { body: { url: 'https://git.example/doc/one' } });
    const id = repo.body.id;
    await seedFindings(v, { kind: 'repository', id }, [{ ruleId: 'CVE-2026-1' }]);
    for (const url of ['/health', '/settings', '/me', '/audit-log?limit=2', '/audit-log/verification', '/repositories/duplicates', '/solutions', '/projects', '/issues', '/exceptions',
      '/gate/verdicts', '/scorecards/badges', '/dashboard/trends', '/security/overview', `/repositories/${id}`, `/scorecards/repositories/${id}`]) await call('GET', url);
    await call('PATCH', '/settings', { body: { triage_four_eyes: false } });
    await call('POST', '/solutions', { body: { name: 'Solution' } });
    await call('POST', '/projects', { body: { name: 'Project' } });
    const issue = (await call('GET', '/issues')).body[0];
    await call('GET', `/issues/${issue.id}`);
    await call('POST', `/issues/${issue.id}/triage`, { body: { status: 'will_not_fix', expires_in_days: 5 } });
    await call('POST', '/issues/triage', { body: { ids: [issue.id], status: 'affected' } });
    await call('POST', '/gate', { body: { repositoryId: id } });
    await call('POST', '/scorecards/badges', { body: { repositoryId: id } });
    // Refusals: 400, 401, 404, 409 as problem documents.
    await call('POST', '/repositories', { body: { url: 42 } });
    await call('GET', '/issues', { token: null });
    await call('GET', '/issues/999999');
    await call('POST', '/repositories', { body: { url: 'https://git.example/doc/one' } });
    await call('GET', '/health?unknown=1');
    expect(checked).to.be.greaterThan(25);
  });
});
