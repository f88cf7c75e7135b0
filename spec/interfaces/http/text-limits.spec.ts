import { expect } from 'chai';
import { seedFindings } from '../../support/backlog';
import { newEncryptionKey } from '../../support/credentials';
import { knownHostsFor, openSshKey } from '../../support/ssh-keys';
import { Answer, RunningVigil, startVigil } from '../../support/vigil';

type Call = () => Promise<Answer>;

/**
 * One string a route accepts. prepare() does whatever the request needs beforehand (a fresh key, a
 * unique url) and answers the request itself, so that the event count is read just before it.
 */
interface Field {
  family: string;
  route: string;
  /** As the detail names it: body.name, body.tools[0], query.owasp_category. */
  field: string;
  max: number;
  multiline?: boolean;
  prepare(value: string): Promise<Call>;
  /** A value of n characters the route accepts; 'x' repeated by default. */
  fill?(n: number): string;
  /** The status of a request whose value has exactly max characters; unset when no such value can be valid. */
  accepted?: number;
  /** A refusal for a control character is audited (one event written), as sign-in refusals are. */
  auditedCharacters?: boolean;
}

const grouped = (n: number) => n.toLocaleString('en-US');
/** A fill whose valid form needs some length (a key, a known_hosts line); short values are plain. */
const sized = (build: (n: number) => string) => (n: number) => (n < 1000 ? 'x'.repeat(n) : build(n));

/**
 * Issue #17, the command end: a string longer than its read-model column, or holding a control
 * character, is refused with a 400 naming the field, and nothing is written; a value of exactly the
 * maximum is accepted. Every route family that writes (and two queries) is covered.
 */
describe('Text limits and control characters on the routes (issue #17)', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let admin: string;
  let governor: string;
  let n = 0;
  let accountId: number;
  let repositoryId: number;
  let issueId: number;
  const signInName = 's'.repeat(100);
  const signInPassword = 'a-long-enough-password';

  before(async () => {
    v = await startVigil({ env: { ENCRYPTION_KEY: newEncryptionKey() } });
    admin = await v.signIn();
    governor = (await v.account(['platform_governor'])).token;
    accountId = (await v.account(['reader'])).id;
    const created = await v.request('POST', '/accounts', { token: admin, body: { username: signInName, password: signInPassword, roles: ['reader'] } });
    expect(created.status, created.text).to.equal(201);
    repositoryId = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/limits/base', scanManualOnly: true } })).body.id;
    await seedFindings(v, { kind: 'repository', id: repositoryId }, [{ ruleId: 'CVE-2024-0001' }]);
    issueId = (await v.request('GET', `/issues?repository_id=${repositoryId}`, { token: admin })).body[0].id;
  });
  after(async () => { await v.stop(); });

  const send = (method: string, path: string, body?: unknown, token: string = admin): Call => () => v.request(method, path, { token, body });
  const unique = () => `https://git.example/limits/repo-${++n}`;
  const freshKey = async () => (await v.key(admin, { name: `pipeline ${++n}`, scopes: ['sarif_import'] })).id;

  const fields: Field[] = [
    // identity
    { family: 'identity', route: 'POST /accounts', field: 'body.username', max: 100, accepted: 201, fill: (k) => 'a'.repeat(k),
      prepare: async (value) => send('POST', '/accounts', { username: value, password: signInPassword, roles: ['reader'] }) },
    { family: 'identity', route: 'POST /accounts', field: 'body.displayName', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/accounts', { username: `display${++n}`, displayName: value, password: signInPassword, roles: ['reader'] }) },
    { family: 'identity', route: 'PATCH /accounts/{id}', field: 'body.displayName', max: 200, accepted: 200,
      prepare: async (value) => send('PATCH', `/accounts/${accountId}`, { displayName: value }) },
    { family: 'identity', route: 'POST /api-keys', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/api-keys', { name: value, scopes: ['read'] }) },
    // A sign-in refused for its characters is audited (one SignInRefused), as every refused sign-in is.
    { family: 'identity', route: 'POST /auth/sign-in', field: 'body.username', max: 100, accepted: 200, fill: (k) => 's'.repeat(k), auditedCharacters: true,
      prepare: async (value) => send('POST', '/auth/sign-in', { username: value, password: signInPassword }, null as never) },
    // targets
    { family: 'targets', route: 'POST /repositories', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/repositories', { url: unique(), name: value, scanManualOnly: true }) },
    { family: 'targets', route: 'POST /repositories', field: 'body.branch', max: 255, accepted: 201, fill: (k) => 'b'.repeat(k),
      prepare: async (value) => send('POST', '/repositories', { url: unique(), branch: value, scanManualOnly: true }) },
    { family: 'targets', route: 'POST /repositories', field: 'body.subPath', max: 1024, accepted: 201, fill: (k) => 'p'.repeat(k),
      prepare: async (value) => send('POST', '/repositories', { url: unique(), subPath: value, scanManualOnly: true }) },
    { family: 'targets', route: 'POST /repositories', field: 'body.url', max: 2048,
      prepare: async (value) => send('POST', '/repositories', { url: value, scanManualOnly: true }) },
    { family: 'targets', route: 'POST /repositories', field: 'body.scanCron', max: 255,
      prepare: async (value) => send('POST', '/repositories', { url: unique(), scanCron: value }) },
    { family: 'targets', route: 'PATCH /repositories/{id}', field: 'body.name', max: 200, accepted: 200,
      prepare: async (value) => send('PATCH', `/repositories/${repositoryId}`, { name: value }) },
    { family: 'targets', route: 'POST /containers', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/containers', { image: `registry.example/limits/app-${++n}:1`, name: value, scanManualOnly: true }) },
    { family: 'targets', route: 'POST /containers', field: 'body.image', max: 1024,
      prepare: async (value) => send('POST', '/containers', { image: value, scanManualOnly: true }) },
    { family: 'targets', route: 'POST /projects', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/projects', { name: value }) },
    { family: 'targets', route: 'POST /solutions', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/solutions', { name: value }) },
    // sources
    { family: 'sources', route: 'POST /sarif-sources', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/sarif-sources', { slug: `name-${++n}`, name: value, api_key_id: await freshKey(), repository_id: repositoryId, tools: ['Tool'] }, governor) },
    { family: 'sources', route: 'POST /sarif-sources', field: 'body.slug', max: 100, accepted: 201, fill: (k) => 'a'.repeat(k),
      prepare: async (value) => send('POST', '/sarif-sources', { slug: value, name: 'CI', api_key_id: await freshKey(), repository_id: repositoryId, tools: ['Tool'] }, governor) },
    { family: 'sources', route: 'POST /sarif-sources', field: 'body.tools[0]', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/sarif-sources', { slug: `t${++n}`, name: 'CI', api_key_id: await freshKey(), repository_id: repositoryId, tools: [value] }, governor) },
    // teams
    { family: 'teams', route: 'POST /teams', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/teams', { name: value }) },
    // credentials
    { family: 'credentials', route: 'POST /credentials/https-tokens', field: 'body.name', max: 200, accepted: 201,
      prepare: async (value) => send('POST', '/credentials/https-tokens', { name: value, host: 'git.example', username: 'oauth2', token: 'glpat-abcdef' }) },
    { family: 'credentials', route: 'POST /credentials/https-tokens', field: 'body.username', max: 255, accepted: 201, fill: (k) => 'u'.repeat(k),
      prepare: async (value) => send('POST', '/credentials/https-tokens', { name: `token ${++n}`, host: 'git.example', username: value, token: 'glpat-abcdef' }) },
    { family: 'credentials', route: 'POST /credentials/https-tokens', field: 'body.host', max: 300,
      prepare: async (value) => send('POST', '/credentials/https-tokens', { name: `token ${++n}`, host: value, username: 'oauth2', token: 'glpat-abcdef' }) },
    { family: 'credentials', route: 'POST /credentials/https-tokens', field: 'body.token', max: 4096, accepted: 201, fill: (k) => 't'.repeat(k),
      prepare: async (value) => send('POST', '/credentials/https-tokens', { name: `token ${++n}`, host: 'git.example', username: 'oauth2', token: value }) },
    { family: 'credentials', route: 'POST /credentials/ssh-keys', field: 'body.knownHosts', max: 65536, multiline: true, accepted: 201,
      // A comment line and CRLF before a tab-separated line: tab, CR and LF are the control characters multi-line text keeps.
      fill: sized((k) => { const line = `\r\ngit.example\t${openSshKey().publicLine}\n`; return `#${'c'.repeat(k - line.length - 1)}${line}`; }),
      prepare: async (value) => send('POST', '/credentials/ssh-keys', { name: `key ${++n}`, privateKey: openSshKey().privateKey, knownHosts: value }) },
    { family: 'credentials', route: 'POST /credentials/ssh-keys', field: 'body.privateKey', max: 16384, multiline: true, accepted: 201,
      fill: sized((k) => { const key = openSshKey().privateKey; return `${key}${'\r\n\t'.repeat(k).slice(0, k - key.length)}`; }),
      prepare: async (value) => send('POST', '/credentials/ssh-keys', { name: `key ${++n}`, privateKey: value, knownHosts: knownHostsFor('git.example') }) },
    // settings
    { family: 'settings', route: 'PATCH /settings', field: 'body.ticket_user', max: 500, accepted: 200,
      prepare: async (value) => send('PATCH', '/settings', { ticket_user: value }) },
    // triage
    { family: 'triage', route: 'POST /issues/{id}/triage', field: 'body.comment', max: 4000, multiline: true, accepted: 200,
      fill: (k) => 'first line\r\n\tsecond line '.repeat(k).slice(0, k),
      prepare: async (value) => send('POST', `/issues/${issueId}/triage`, { status: 'affected', comment: value }) },
    { family: 'triage', route: 'POST /issues/triage', field: 'body.issues[0].ifMatch', max: 40,
      prepare: async (value) => send('POST', '/issues/triage', { issues: [{ id: issueId, ifMatch: value }], status: 'affected' }) },
    // gate
    { family: 'gate', route: 'POST /gate', field: 'body.branch', max: 255, accepted: 200, fill: (k) => 'g'.repeat(k),
      prepare: async (value) => {
        const url = unique();
        if (value === 'g'.repeat(255)) expect((await v.request('POST', '/repositories', { token: admin, body: { url, branch: value, scanManualOnly: true } })).status).to.equal(201);
        return send('POST', '/gate', { repositoryUrl: url, branch: value });
      } },
    { family: 'gate', route: 'POST /gate', field: 'body.repositoryUrl', max: 2048,
      prepare: async (value) => send('POST', '/gate', { repositoryUrl: value }) },
    // queries
    // The longest category code (A10:2021, issue #16) is accepted; a shorter value of other characters is a malformed code.
    { family: 'queries', route: 'GET /issues', field: 'query.owasp_category', max: 8, accepted: 200, fill: (k) => (k === 8 ? 'A10:2021' : 'A'.repeat(k)),
      prepare: async (value) => send('GET', `/issues?owasp_category=${encodeURIComponent(value)}`) },
    { family: 'queries', route: 'GET /audit-log', field: 'query.type', max: 128, accepted: 200, fill: (k) => 'T'.repeat(k),
      prepare: async (value) => send('GET', `/audit-log?type=${encodeURIComponent(value)}`) },
  ];

  /** A refusal: 400, a problem document whose detail names the field and matches, nothing written (or only its audit entry). */
  const refused = async (call: Call, field: string, detail: string, audited = false) => {
    const before = await v.eventCount();
    const r = await call();
    expect(r.status, r.text).to.equal(400);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(r.body.detail).to.contain(field).and.to.contain(detail);
    expect(await v.eventCount(), audited ? 'only the audited refusal written' : 'nothing written').to.equal(before + (audited ? 1 : 0));
  };

  for (const f of fields) {
    const fill = f.fill ?? ((k: number) => 'x'.repeat(k));
    describe(`${f.family}: ${f.route} ${f.field}`, () => {
      it(`${grouped(f.max + 1)} characters: 400 "${f.field} is ${grouped(f.max + 1)} characters; at most ${grouped(f.max)}", nothing written`, async () => {
        await refused(await f.prepare(fill(f.max + 1)), f.field, `is ${grouped(f.max + 1)} characters; at most ${grouped(f.max)}`);
      });
      it('a NUL: 400 naming the field and U+0000, nothing written', async () => {
        await refused(await f.prepare(`${fill(4)}\u0000${fill(2)}`), f.field, 'U+0000', f.auditedCharacters);
      });
      it(`another control character (U+0007${f.multiline ? '' : ', U+0085'}): 400 naming the field and the character, nothing written`, async () => {
        await refused(await f.prepare(`${fill(4)}\u0007`), f.field, 'control character (U+0007) at character 5', f.auditedCharacters);
        if (!f.multiline) await refused(await f.prepare(`\u0085${fill(4)}`), f.field, 'control character (U+0085) at character 1', f.auditedCharacters);
      });
      if (!f.multiline) {
        it('tab, LF and CR: refused in single-line text', async () => {
          await refused(await f.prepare(`${fill(2)}\t${fill(2)}`), f.field, 'U+0009, tab', f.auditedCharacters);
          await refused(await f.prepare(`${fill(2)}\n`), f.field, 'U+000A, line feed', f.auditedCharacters);
        });
      }
      if (f.accepted !== undefined) {
        it(`exactly ${grouped(f.max)} characters${f.multiline ? ', tab, CR and LF included,' : ''}: ${f.accepted}`, async () => {
          const value = fill(f.max);
          expect([...value]).to.have.length(f.max);
          const r = await (await f.prepare(value))();
          expect(r.status, r.text.slice(0, 300)).to.equal(f.accepted);
        });
      }
    });
  }

  describe('record keys (PATCH /settings takes settings by name)', () => {
    it('a name over 100 characters (settings.name): 400 naming the key, nothing written', async () => {
      await refused(send('PATCH', '/settings', { ['k'.repeat(101)]: 1 }), 'body key', 'is 101 characters; at most 100');
    });
    it('a name holding NUL or another control character: 400 naming the key, nothing written', async () => {
      await refused(send('PATCH', '/settings', { 'ticket\u0000user': 'x' }), 'body key "ticket\\u0000user"', 'U+0000');
      await refused(send('PATCH', '/settings', { 'ticket\u0001user': 'x' }), 'body key "ticket\\u0001user"', 'control character (U+0001) at character 7');
    });
  });

  describe('U+0000 anywhere in a JSON body or a query, whatever the route\'s schema says (defence in depth)', () => {
    it('in a member the schema does not know, deep in an array: 400 naming its JSON path, nothing written', async () => {
      await refused(send('POST', '/teams', { name: 'ok', extra: [{ deep: ['fine', 'a\u0000b'] }] }), 'body.extra[0].deep[1]', 'U+0000');
    });
    it('in a key: 400 naming the key', async () => {
      await refused(send('POST', '/teams', { name: 'ok', extra: { 'a\u0000b': 1 } }), 'body.extra key "a\\u0000b"', 'U+0000');
    });
    it('in a value a schema leaves open (the gate policy\'s severity takes any value): 400 naming it', async () => {
      await refused(send('POST', '/gate', { repositoryId, policy: { severity: 'hi\u0000gh' } }), 'body.policy.severity', 'U+0000');
    });
    it('in a query parameter of any route, even one the route does not take: 400 naming it', async () => {
      await refused(send('GET', '/issues?owasp_category=a%00b'), 'query.owasp_category', 'U+0000');
      await refused(send('GET', '/teams?x%00y=1'), 'query key "x\\u0000y"', 'U+0000');
    });
  });

  describe('what deciders derive must fit too', () => {
    const identity = (k: number) => `https://git.example/${'r'.repeat(k - 'git.example/'.length)}`;

    it('a url whose identity (host and path) is 1,025 characters: 400 naming url, nothing written; 1,024 is accepted', async () => {
      await refused(send('POST', '/repositories', { url: identity(1025), scanManualOnly: true }), 'url', 'identity (host and path, as compared) is 1,025 characters; at most 1,024');
      const r = await v.request('POST', '/repositories', { token: admin, body: { url: identity(1024), scanManualOnly: true } });
      expect(r.status, r.text.slice(0, 200)).to.equal(201);
      expect(r.body.identity).to.have.length(1024);
    });

    it('a name taken from a long url or image is cut to its column (255 characters)', async () => {
      const repository = await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/org/${'n'.repeat(300)}`, scanManualOnly: true } });
      expect(repository.status).to.equal(201);
      expect(repository.body.name).to.equal('n'.repeat(255));
      const image = `registry.example/${'i'.repeat(230)}:${'t'.repeat(60)}`;
      const container = await v.request('POST', '/containers', { token: admin, body: { image, scanManualOnly: true } });
      expect(container.status, container.text).to.equal(201);
      expect(container.body.image).to.equal(image);
      expect(container.body.name).to.equal(image.slice(0, 255));
    });

    it('a source\'s tool whose issues\' key import:<slug>/<tool> would pass 255 characters: 400 naming tools[0], nothing written; 255 is accepted', async () => {
      const slug = 's'.repeat(100);
      const keyId = await freshKey();
      await refused(send('POST', '/sarif-sources', { slug, name: 'CI', api_key_id: keyId, repository_id: repositoryId, tools: ['t'.repeat(148)] }, governor),
        'tools[0]', 'would be 256 characters; at most 255');
      const r = await v.request('POST', '/sarif-sources', { token: governor, body: { slug, name: 'CI', api_key_id: keyId, repository_id: repositoryId, tools: ['t'.repeat(147)] } });
      expect(r.status, r.text).to.equal(201);
    });

    it('an OpenSSH private key naming a key type that is none (here with a NUL): 400, nothing written', async () => {
      await refused(send('POST', '/credentials/ssh-keys', { name: 'forged', privateKey: openSshKey({ keyType: 'ssh-ed25519\u0000x'.repeat(20) }).privateKey, knownHosts: knownHostsFor('git.example') }),
        'privateKey', 'is not an SSH key type');
    });
  });
});
