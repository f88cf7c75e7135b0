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
  triageStatus: str, triageRequestedStatus: nullable(str), firstSeenAt: time, lastSeenAt: time, resolvedAt: nullable(time), remediationDeadline: nullable(time),
  owaspCategories: { type: 'array', description: 'OWASP Top 10 categories the rule names, normal form A03:2021, sorted; empty for none', items: { type: 'string', pattern: '^A(0[1-9]|10):20[0-9]{2}$' } },
  revision: int,
}, ['id', 'targetKind', 'targetId', 'type', 'status', 'severity', 'triageStatus', 'owaspCategories', 'revision']);
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

// Issues #11-#14: answers of the exports, SIEM, agents and second-factor routes. Documents in a
// standard format point at that format's official schema (the tests validate against it).
const open = (description: string, properties: Record<string, Schema> = {}): Schema => ({ type: 'object', description, properties });
const document = (format: string): Schema => open(`${format}, served byte-exact; its detached ECDSA-SHA256 signature is in the Vigil-Signature header (base64 DER), its SHA-256 in Vigil-Document-SHA256; ?envelope=dsse answers an in-toto Statement v1 in a DSSE envelope instead (docs/exports.md)`);
const agentJob = open('A claimed scan (docs/agents.md)', { id: int, attempt: int, leaseExpiresAt: time, target: open('What to scan'), credential: open('A clone credential sealed to the agent\'s verified X25519 key (delegated agents only)') });
const agentRow = open('An agent as GET /admin/agents lists it', { agentId: int, mode: str, version: str, labels: list(str), maxConcurrent: int, status: str });
const siemConfig = open('The SIEM export configuration; the Authorization value is never answered, only whether one is stored', {
  enabled: bool, protocol: { type: 'string', enum: ['webhook', 'syslog_udp', 'syslog_tcp', 'syslog_tls'] }, endpoint: str, minimumSeverity: { type: 'string', enum: ['low', 'medium', 'high', 'critical'] },
});
const evidenceBundle = open('An evidence bundle: its id, digest, size, expiry and the instant it answers for (docs/exports.md)', { id: int, sha256, createdAt: time, asOf: time });
const ANSWERS_OF_LATER_ISSUES: Record<string, Record<number, Schema>> = {
  'get /agent/jobs': { 200: open('Claimed jobs (possibly none) and the limit in force', { jobs: list(agentJob), maxConcurrent: int }) },
  'post /agent/jobs/{id}/lease': { 200: open('The renewed lease', { leaseExpiresAt: time }) },
  'post /agent/jobs/{id}/result': { 200: open('The result was taken') },
  'post /agent/jobs/{id}/failure': { 200: open('The failure was recorded') },
  'get /admin/agents': { 200: list(agentRow) },
  'get /admin/agents/credentialed-backlog': { 200: list(open('A scan that needs a credential, and the agents able to take it')) },
  'put /admin/agents/{id}/signing-key': { 200: open('The pinned key; with `generate`, the private half once', { publicKey: str }) },
  'delete /admin/agents/{id}/signing-key': { 200: agentRow },
  'delete /admin/agents/{id}/sealing-key': { 200: agentRow },
  'get /audit-log/head': { 200: open('The newest audit entry: its sequence number and chain hash', { seq: int, hash: str }) },
  'get /siem/config': { 200: siemConfig },
  'put /siem/config': { 200: siemConfig },
  'post /siem/test': { 200: open('Whether the VGL-SEC-999 test event reached the collector', { delivered: bool }) },
  'get /siem/outbox': { 200: list(open('A queued security event and its delivery', { status: str, attempts: int })) },
  'post /auth/second-factor': { 200: open('The session, once the second factor held', { token: str, expiresAt: time }) },
  'get /crypto/public-key.pub': { 200: { type: 'string', description: 'The platform public key (SPKI PEM)' } },
  'get /projects/{id}/export': { 200: document('vigil-project-export 1.1 (schema at GET /schemas/project-export/1)') },
  'get /schemas/project-export/{major}': { 200: open('The JSON schema (2020-12) of vigil-project-export') },
  'post /projects/{id}/evidence-bundles': { 201: evidenceBundle },
  'get /projects/{id}/evidence-bundles': { 200: list(evidenceBundle) },
  'get /projects/{id}/evidence-bundles/{bundleId}': { 200: { type: 'string', format: 'binary', description: 'The zip: VEX documents, SBOMs, project export, audit extract with the chain head, signed manifest' } },
  'post /vex/ingest': { 200: open('Each statement\'s outcome (applied, requested, unmatched, refused) and whether it was a dry run') },
};
const FORMATS: Record<string, string> = {
  'cyclonedx-vex': 'A CycloneDX 1.6 VEX document', openvex: 'An OpenVEX 0.2.0 document', 'csaf-vex': 'A CSAF 2.0 document of the VEX profile',
  'cyclonedx-sbom': 'A CycloneDX 1.6 SBOM', sarif: 'A SARIF 2.1.0 log',
};
const MEDIA: Record<string, string> = {
  'cyclonedx-vex': 'application/vnd.cyclonedx+json', openvex: 'application/json', 'csaf-vex': 'application/json', 'cyclonedx-sbom': 'application/vnd.cyclonedx+json', sarif: 'application/sarif+json',
};
const EXPORT_MEDIA: Record<string, string> = {};
for (const scope of ['repositories', 'containers', 'projects', 'solutions']) {
  for (const format of Object.keys(FORMATS)) {
    const key = `get /${scope}/{id}/exports/${format}`;
    ANSWERS_OF_LATER_ISSUES[key] = { 200: document(FORMATS[format]) };
    EXPORT_MEDIA[key] = MEDIA[format];
  }
}

export const ANSWER_SCHEMAS: Record<string, Record<number, Schema>> = {
  ...ANSWERS_OF_LATER_ISSUES,
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
  ...EXPORT_MEDIA,
  'get /crypto/public-key.pub': 'application/x-pem-file',
  'get /schemas/project-export/{major}': 'application/schema+json',
  'get /projects/{id}/evidence-bundles/{bundleId}': 'application/zip',
  'get /scorecards/badges/{badgeToken}.svg': 'image/svg+xml',
};
