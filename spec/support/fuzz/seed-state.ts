import * as fs from 'node:fs';
import { ROLES, scopesAllowedFor, SCOPES } from '../../../domain/identity/roles';
import { SOURCE_KINDS } from '../../../domain/sources/source';
import { corpusPath } from '../corpus';
import { RunningVigil } from '../vigil';
import { Hints } from './schema-arbitrary';

/** The real state the fuzz starts from: who calls, and ids that exist. */
export interface Seeded {
  admin: { id: number; token: string; username: string; password: string };
  governor: { id: number; token: string };
  /** An API key with every scope the administrator may hold, bound to the import source. */
  key: { id: number; key: string };
  /** Real values for body members and query parameters (ids, roles, setting names). */
  hints: Hints;
  /** Real values for a path parameter, by "<literal segment before it>/<name>". */
  pathValues(segment: string, name: string): string[];
  /** What the seeding made, for the report. */
  summary: Record<string, unknown>;
}

const FIXTURES = {
  sarif: ['sarif', 'checkov', 'checkov-2.1.277.sarif'],
  lcov: ['coverage', 'lcov', 'istanbul__typescript.lcov'],
  junit: ['junit', 'ant-junit__single-suite.xml'],
  sbom: ['sbom', 'cyclonedx-1.5', 'spec__valid-bom-1.5.json'],
} as const;

/**
 * A little of everything, through the API as a user would make it: accounts, a solution and a
 * project, a repository and a container, a team with a member and a grant, keys, a declared
 * source, a SARIF import (so issues exist) and the report imports from the shared corpus (read
 * in place), an exception, a queued scan, a stored credential, a badge and a gate verdict.
 */
export async function seedState(v: RunningVigil, password: string): Promise<Seeded> {
  const admin = await v.signIn();
  const ok = async (what: string, r: Promise<{ status: number; body: any; text: string }>) => {
    const a = await r;
    if (a.status >= 300) throw new Error(`seeding ${what} failed: ${a.status} ${a.text.slice(0, 500)}`);
    return a.body;
  };
  const as = (token: string, method: string, path: string, body?: unknown) => v.request(method, path, { token, body });
  const me = await ok('me', as(admin, 'GET', '/me'));
  const governor = await v.account(['platform_governor'], 'fuzz-governor');
  const victim = await v.account(['reader'], 'fuzz-victim');
  const solution = await ok('solution', as(admin, 'POST', '/solutions', { name: 'Fuzz solution' }));
  const project = await ok('project', as(admin, 'POST', '/projects', { name: 'Fuzz project', solutionId: solution.id }));
  const repo = await ok('repository', as(admin, 'POST', '/repositories', { url: 'https://git.example/fuzz/app', projectId: project.id }));
  const container = await ok('container', as(admin, 'POST', '/containers', { image: 'registry.example/fuzz/app:1.0', projectId: project.id }));
  const team = await ok('team', as(admin, 'POST', '/teams', { name: 'Fuzz team' }));
  await ok('team member', as(admin, 'POST', `/teams/${team.id}/members`, { accountId: victim.id }));
  await ok('team grant', as(admin, 'POST', `/teams/${team.id}/grants`, { kind: 'project', id: project.id }));
  const scopes = SCOPES.filter((s) => scopesAllowedFor(me.roles).has(s));
  const key = await v.key(admin, { name: 'fuzz pipeline', scopes });
  const victimKey = await v.key(admin, { name: 'fuzz victim', scopes: ['read', 'sarif_import'] });
  const source = await ok('source', as(governor.token, 'POST', '/sarif-sources', {
    slug: 'fuzz-ci', name: 'Fuzz CI', api_key_id: key.id, repository_id: repo.id, kinds: [...SOURCE_KINDS], tools: ['Checkov', 'Tool'],
  }));
  const victimSource = await ok('victim source', as(governor.token, 'POST', '/sarif-sources', {
    slug: 'fuzz-victim', name: 'Fuzz victim', api_key_id: victimKey.id, repository_id: repo.id, kinds: ['sarif'], tools: ['Tool'],
  }));
  const upload = (kind: string, file: readonly string[], type: string, query = '') =>
    ok(`${kind} import`, v.request('POST', `/repositories/${repo.id}/${kind}-imports${query}`, { apiKey: key.key, raw: fs.readFileSync(corpusPath(...file)), contentType: type }));
  const sarif = await upload('sarif', FIXTURES.sarif, 'application/sarif+json');
  const coverage = await upload('coverage', FIXTURES.lcov, 'text/plain', '?format=lcov&commit=abc123&branch=main');
  const testReport = await upload('test-report', FIXTURES.junit, 'application/xml');
  const sbom = await upload('build-sbom', FIXTURES.sbom, 'application/vnd.cyclonedx+json');
  const issues: number[] = (await ok('issues', as(admin, 'GET', `/issues?repository_id=${repo.id}`))).map((i: { id: number }) => i.id);
  if (issues.length < 2) throw new Error(`seeding: the SARIF import made ${issues.length} issues; the fuzz needs at least 2`);
  await ok('exception', as(admin, 'POST', `/issues/${issues[0]}/triage`, { status: 'will_not_fix', comment: 'accepted risk', expires_in_days: 30 }));
  const scan = await ok('scan', as(admin, 'POST', `/repositories/${repo.id}/scan`, {}));
  const credential = await ok('credential', as(admin, 'POST', '/credentials/https-tokens', { name: 'fuzz token', host: 'git.example', username: 'oauth2', token: 'glpat-0123456789abcdefghij' }));
  const badge = await ok('badge', as(admin, 'POST', '/scorecards/badges', { repositoryId: repo.id }));
  await ok('gate verdict', as(admin, 'POST', '/gate', { repositoryId: repo.id }));
  const settings = Object.keys(await ok('settings', as(admin, 'GET', '/settings')));

  const ids = { solution: solution.id, project: project.id, repository: repo.id, container: container.id, team: team.id, victim: victim.id, issues, scan: scan.id, credential: credential.id, badge: badge.id };
  const members: Record<string, readonly unknown[]> = {
    projectId: [project.id], project_id: [project.id], solutionId: [solution.id],
    repositoryId: [repo.id], repository_id: [repo.id], repo_id: [repo.id], target_id: [repo.id, container.id],
    containerId: [container.id], container_id: [container.id], accountId: [victim.id], actor: [me.id, victim.id],
    api_key_id: [key.id, victimKey.id], sshKeyId: [credential.id], httpsTokenId: [credential.id],
    id: [repo.id, project.id, container.id, ...issues], ids: issues,
    roles: ROLES, scopes: SCOPES, kinds: SOURCE_KINDS, tools: ['Checkov', 'Tool'],
    url: ['https://git.example/fuzz/app', 'https://git.example/fuzz/other.git'], repositoryUrl: ['https://git.example/fuzz/app'],
    image: ['registry.example/fuzz/app:1.0'], host: ['git.example'], branch: ['main'], slug: ['fuzz-ci'],
    // A benign long poll waits a second at most, so the operation's runs fit the budget.
    wait: [0, 1],
    username: ['fuzz-victim'], format: ['lcov', 'jacoco', 'cobertura'], commit: ['abc123', 'f'.repeat(64)],
    '[name]': settings,
  };
  const byParam: Record<string, unknown[]> = {
    'teams/id': [team.id], 'members/accountId': [victim.id], 'grants/kind': ['project', 'repository', 'container'], 'grants/targetId': [project.id, repo.id, container.id],
    'accounts/id': [victim.id], 'api-keys/id': [victimKey.id], 'repositories/id': [repo.id], 'containers/id': [container.id],
    'issues/id': issues, 'exceptions/issueId': issues, 'sarif-sources/slug': [victimSource.slug],
    'coverage-imports/importId': [coverage.id], 'test-report-imports/importId': [testReport.id], 'build-sbom-imports/importId': [sbom.id],
    'scans/id': [scan.id], 'badges/id': [badge.id], 'badges/badgeToken': [badge.token], 'projects/id': [project.id], 'solutions/id': [solution.id], 'credentials/id': [credential.id],
  };
  const paths = Object.fromEntries(Object.entries(byParam).map(([k, vals]) => [k, vals.map(String)]));

  return {
    admin: { id: me.id, token: admin, username: me.username, password },
    governor: { id: governor.id, token: governor.token },
    key,
    hints: (member) => members[member],
    pathValues: (segment, name) => paths[`${segment}/${name}`] ?? [],
    summary: { ...ids, key: key.id, victimKey: victimKey.id, source: source.slug, victimSource: victimSource.slug, sarifImport: sarif.id, coverage: coverage.id, testReport: testReport.id, sbom: sbom.id, settings },
  };
}
