/**
 * Success answers of the routes that declare no schema of their own (their answers come straight
 * from query modules), keyed by `METHOD path`. The OpenAPI document uses a route's own
 * `responses[status].schema` first; these fill the rest so that every operation documents what it
 * answers. The members listed are those the answers always carry; objects stay open (more members
 * may come). A route that gains its own schema should drop its line here.
 */
type Schema = Record<string, unknown>;

const int: Schema = { type: 'integer' };
const num: Schema = { type: 'number' };
const bool: Schema = { type: 'boolean' };
const str: Schema = { type: 'string' };
const time: Schema = { type: 'string', format: 'date-time' };
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: 'object', properties, required });
const list = (items: Schema): Schema => ({ type: 'array', items });
const sha256: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };

const health = obj({
  status: { type: 'string', enum: ['up', 'down'] }, eventStore: { type: 'string', enum: ['up', 'down'] }, database: { type: 'string', enum: ['up', 'down'] },
  projections: list(obj({
    name: str, position: int, lagEvents: int,
    failures: obj({ count: int, latest: list(obj({ position: int, type: str, at: time })) }),
  })),
});
const settings: Schema = { type: 'object', description: 'Installation settings by name (README "Settings")', additionalProperties: { type: ['boolean', 'integer', 'string', 'null'] } };
const account = obj({ id: int, username: str, displayName: str, roles: list(str), active: bool, createdAt: time }, ['id', 'username', 'roles']);
const grant: Schema = { type: 'object', description: 'A project or a target the team is granted' };
const auditEntry = obj({
  seq: int, eventId: str, stream: str, revision: int, position: int, commit: str, type: str, actor: nullable(int), address: nullable(str), at: time,
  metadataHash: sha256, dataHash: sha256, prevHash: sha256, hash: sha256,
});
const verification = obj({ valid: bool, entries: int, brokenAt: nullable(int), brokenPosition: nullable(int), differs: nullable(str), reason: nullable(str) });
const solution = obj({ id: int, name: str, createdAt: time }, ['id', 'name']);
const project = obj({ id: int, name: str, solutionId: nullable(int), createdAt: time }, ['id', 'name']);
const issue = obj({
  id: int, targetKind: { type: 'string', enum: ['repository', 'container'] }, targetId: int, repositoryId: nullable(int), containerId: nullable(int),
  type: str, status: str, ruleId: nullable(str), path: nullable(str), line: nullable(int), severity: str, title: nullable(str), identifier: nullable(str),
  triageStatus: str, triageRequestedStatus: nullable(str), firstSeenAt: time, lastSeenAt: time, resolvedAt: nullable(time), revision: int,
}, ['id', 'targetKind', 'targetId', 'type', 'status', 'severity', 'triageStatus', 'revision']);
const issueWithHistory = { ...issue, properties: { ...(issue.properties as object), history: list(obj({ revision: int, type: str, at: time, actor: nullable(int) }, ['revision', 'type', 'at'])) } };
const bulkTriage = obj({
  decided: int, refused: int,
  results: list(obj({ id: int, outcome: int, type: nullable(str), detail: nullable(str), triageStatus: nullable(str), triageRequestedStatus: nullable(str), etag: nullable(str) }, ['id', 'outcome'])),
});
const exception = obj({ issueId: int, targetKind: str, granted: nullable(str), requested_status: nullable(str), reviewDate: nullable(time), etag: str }, ['issueId', 'targetKind', 'etag']);
const source = obj({
  id: int, slug: str, name: str, api_key_id: int, project_id: nullable(int), repository_id: nullable(int), kinds: list(str), tools: list(str),
  state: { type: 'string', enum: ['enabled', 'disabled'] }, created_at: time, updated_at: time,
}, ['id', 'slug', 'name', 'kinds', 'state']);
const importBase = { id: int, source: nullable(str), accountId: nullable(int), sha256, createdAt: time };
const sarifAccepted = obj({ id: int, resultsCount: int, createdCount: int, resolvedCount: int, reopenedCount: int, tools: list(str), sha256 });
const sarifImport = obj({ ...importBase, resultsCount: int, createdCount: int, resolvedCount: int, reopenedCount: int, tools: list(str) });
const coverageFigures = { linesCovered: int, linesTotal: int, branchesCovered: nullable(int), branchesTotal: nullable(int), toolVersion: nullable(str), commit: nullable(str), branch: nullable(str), packagesState: str };
const coverageAccepted = obj({ id: int, ...coverageFigures, sha256 });
const coverageImport = obj({ ...importBase, format: str, ...coverageFigures });
const coverageImportDetail = { ...coverageImport, properties: { ...(coverageImport.properties as object), packages: list(obj({ name: str, linesCovered: int, linesTotal: int })) } };
const testFigures = { documents: int, suites: int, tests: int, failures: int, errors: int, skipped: int };
const testAccepted = obj({ id: int, ...testFigures, sha256 });
const testImport = obj({ ...importBase, ...testFigures, commit: nullable(str), branch: nullable(str) });
const testImportDetail = { ...testImport, properties: { ...(testImport.properties as object), suiteTotals: list(obj({ name: str, tests: int, failures: int, errors: int, skipped: int })) } };
const sbomAccepted = obj({ id: int, components: int, specVersion: str, sha256 });
const sbomImport = obj({ ...importBase, specVersion: str, components: int, commit: nullable(str), branch: nullable(str) });
const sbomImportDetail = { ...sbomImport, properties: { ...(sbomImport.properties as object), componentList: list(obj({ name: str, version: nullable(str), purl: nullable(str), type: nullable(str), bomRef: nullable(str), source: str }, ['name'])) } };
const verdict = obj({
  id: int, targetKind: str, targetId: int, passed: bool, violations: list({ type: 'object', properties: { rule: str } }), violationCount: int, violationsOmitted: int,
  counts: { type: 'object', additionalProperties: int }, policy: { type: 'object' }, at: time,
}, ['id', 'targetKind', 'targetId', 'passed', 'violations', 'at']);
const badge = obj({ id: int, targetKind: str, targetId: int, issuedBy: nullable(int), issuedAt: time, revokedAt: nullable(time) }, ['id', 'targetKind', 'targetId', 'issuedAt']);
const badgeIssued = obj({ id: int, token: str, targetKind: str, targetId: int, path: str, issuedAt: time });
const trends = obj({
  score_formula_changed_on: nullable(str), days: int,
  points: list(obj({ date: { type: 'string', format: 'date' }, riskPoints: num, openCriticalCount: int, openHighCount: int, openKevCount: int, observedTargets: int, lowestScore: nullable(int) })),
});
const grades = list(obj({ grade: str, count: int }));
const overview = obj({
  totalTargets: int, observedTargets: int, neverScannedCount: int, lastScanFailedCount: int, failingCount: int, grades,
  riskPoints: nullable(num), openCriticalCount: int, openHighCount: int, openKevCount: int, overdueCount: int, licenseViolationCount: int,
});
const svg: Schema = { type: 'string', description: 'image/svg+xml: the grade letter only' };

export const ANSWER_SCHEMAS: Record<string, Record<number, Schema>> = {
  'get /health': { 200: health, 503: health },
  'get /settings': { 200: settings },
  'patch /settings': { 200: settings },
  'get /teams/{id}/members': { 200: list(int) },
  'get /teams/{id}/grants': { 200: list(grant) },
  'get /audit-log': { 200: list(auditEntry) },
  'get /audit-log/verification': { 200: verification },
  'get /me': { 200: { ...account, properties: { ...(account.properties as object), credential: { type: 'string', enum: ['session', 'key'] }, scopes: list(str) } } },
  'get /repositories/duplicates': { 200: list({ type: 'object' }) },
  'get /solutions': { 200: list(solution) },
  'post /solutions': { 201: solution },
  'get /projects': { 200: list(project) },
  'post /projects': { 201: project },
  'get /issues': { 200: list(issue) },
  'get /issues/{id}': { 200: issueWithHistory },
  'post /issues/{id}/triage': { 200: issueWithHistory },
  'post /issues/triage': { 200: bulkTriage },
  'post /issues/{id}/triage-approval': { 200: issueWithHistory },
  'post /issues/{id}/triage-refusal': { 200: issueWithHistory },
  'get /exceptions': { 200: list(exception) },
  'post /exceptions/{issueId}/reviews': { 200: issueWithHistory },
  'post /sarif-sources': { 201: source },
  'get /sarif-sources': { 200: list(source) },
  'post /sarif-sources/{slug}/disable': { 200: source },
  'post /sarif-sources/{slug}/enable': { 200: source },
  'post /repositories/{id}/sarif-imports': { 201: sarifAccepted },
  'get /repositories/{id}/sarif-imports': { 200: list(sarifImport) },
  'post /repositories/{id}/coverage-imports': { 201: coverageAccepted },
  'get /repositories/{id}/coverage-imports': { 200: list(coverageImport) },
  'get /repositories/{id}/coverage-imports/{importId}': { 200: coverageImportDetail },
  'post /repositories/{id}/test-report-imports': { 201: testAccepted },
  'get /repositories/{id}/test-report-imports': { 200: list(testImport) },
  'get /repositories/{id}/test-report-imports/{importId}': { 200: testImportDetail },
  'post /repositories/{id}/build-sbom-imports': { 201: sbomAccepted },
  'get /repositories/{id}/build-sbom-imports': { 200: list(sbomImport) },
  'get /repositories/{id}/build-sbom-imports/{importId}': { 200: sbomImportDetail },
  'get /gate/verdicts': { 200: list(verdict) },
  'get /scorecards/badges': { 200: list(badge) },
  'post /scorecards/badges': { 201: badgeIssued },
  'get /scorecards/badges/{badgeToken}.svg': { 200: svg },
  'get /dashboard/trends': { 200: trends },
  'get /security/overview': { 200: overview },
};

/** Content types of answers that are not JSON. */
export const ANSWER_MEDIA_TYPES: Record<string, string> = {
  'get /scorecards/badges/{badgeToken}.svg': 'image/svg+xml',
};
