import { GateVerdict, ReportContext, Violation, exitCodeOf, titleOf } from '../verdict';

/** What each gate rule means, as SARIF rule metadata (spec 1 §2.8). */
const RULES: Record<string, string> = {
  observation: 'The target has no completed scan, or its newest finished scan failed: the gate cannot vouch for it.',
  kev: 'An open issue is in CISA\'s Known Exploited Vulnerabilities catalogue.',
  severity: 'An open issue is at or above the policy\'s severity.',
  coverage: 'Line coverage of the newest coverage import is below the policy\'s minimum.',
};

/** SARIF's levels: what a code-scanning view shows as error, warning or note. */
function levelOf(v: Violation): 'error' | 'warning' | 'note' {
  if (v.rule === 'kev' || v.rule === 'observation' || v.severity === 'critical' || v.severity === 'high') return 'error';
  if (v.severity === 'low') return 'note';
  return 'warning';
}

/**
 * SARIF 2.1.0: one run of the tool `vigil-gate`, one result per violation with its rule, level,
 * message, and the finding's file and line where Vigil knows them; the verdict's id and outcome in
 * the run's properties. Validated against the official schema in the package's spec.
 */
export function sarif(verdict: GateVerdict, ctx: ReportContext): string {
  const used = [...new Set(verdict.violations.map((v) => v.rule))];
  const rules = used.map((id) => ({
    id, name: id,
    shortDescription: { text: RULES[id] ?? `Vigil gate rule ${id}` },
    helpUri: `${ctx.url.replace(/\/api\/v1$/, '')}/api/v1/explorer`,
  }));
  const results = verdict.violations.map((v) => ({
    ruleId: v.rule,
    ruleIndex: used.indexOf(v.rule),
    level: levelOf(v),
    message: { text: `${titleOf(v)}: ${v.reason}` },
    ...(v.path ? {
      locations: [{ physicalLocation: { artifactLocation: { uri: v.path.split('/').map(encodeURIComponent).join('/') }, ...(v.line ? { region: { startLine: v.line } } : {}) } }],
    } : {}),
    ...(v.issueId !== undefined ? { partialFingerprints: { vigilIssueId: String(v.issueId) } } : {}),
    properties: {
      ...(v.issueId !== undefined ? { issueId: v.issueId } : {}),
      ...(v.identifier !== undefined ? { identifier: v.identifier } : {}),
      ...(v.severity !== undefined ? { severity: v.severity } : {}),
      ...(v.package ? { package: v.package } : {}),
    },
  }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'vigil-gate', semanticVersion: ctx.version, version: ctx.version, informationUri: 'https://vigil.example/docs/ci', rules } },
      invocations: [{ executionSuccessful: true, exitCode: exitCodeOf(verdict, ctx.advisory) }],
      results,
      properties: {
        target: ctx.targetLabel, passed: verdict.passed, advisory: ctx.advisory,
        ...(verdict.id !== undefined ? { verdictId: verdict.id } : {}), ...(verdict.at ? { at: verdict.at } : {}), ...(verdict.policy ? { policy: verdict.policy } : {}),
      },
    }],
  };
  return JSON.stringify(log, null, 2);
}
