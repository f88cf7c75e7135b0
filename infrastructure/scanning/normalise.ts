import {
  ArtifactNormaliser, ScanStep, ScanTarget, StepArtifact, StepFinding,
} from '../../application/ports/scanning';
import type { IssueType } from '../../domain/backlog/issue';
import type { Severity } from '../../domain/gate/severity';
import { ImportRefusal } from '../../domain/imports/import-refusal';
import { OWASP_CATEGORIES_PER_ISSUE, owaspCategoriesOfSemgrep } from '../../domain/backlog/owasp';
import { scanFailure } from './failures';
import { parseSarif } from '../parsers/sarif';
import { LicencePolicy } from './licences';
import { scannerPath, SOURCE_MOUNT } from './scanner-paths';

/**
 * Native scanner output → StepFindings (spec 1 §1.3: the same rows whoever ran the scan).
 *
 * Formats read, per step (the artifact's `tool` picks the reader; an unknown tool name is
 * recognised by the shape of its output; SARIF 2.1.0 is accepted from any tool):
 *
 * | Step | Formats |
 * |---|---|
 * | sbom | CycloneDX JSON (Syft `-o cyclonedx-json`), Syft JSON — no findings; licences for the policy |
 * | vulnerabilities | Grype JSON, Trivy JSON (`Vulnerabilities`), SARIF |
 * | secrets | Gitleaks JSON, Trivy JSON (`Secrets`), SARIF |
 * | iac | Checkov JSON (one report or the array of per-framework reports), KICS JSON, Trivy JSON (`Misconfigurations`), SARIF |
 * | sast | Semgrep JSON, SARIF |
 *
 * Identity (never the line): vulnerabilities → ruleId = the vulnerability id, path = the package
 * purl, else `name@version`; everything else → ruleId = the tool's rule id, path = the file
 * (see scanner-paths.ts). Two findings with one identity are one issue: the worst severity is kept,
 * with the first line and "fixable" when any is.
 *
 * Severity mapping (the backlog knows critical, high, medium, low):
 * - Grype: Critical, High, Medium, Low as named; Negligible → low; Unknown or empty → from the
 *   highest CVSS base score given (9+ critical, 7+ high, 4+ medium, else low), none → medium.
 * - Trivy: CRITICAL, HIGH, MEDIUM, LOW as named; UNKNOWN → from the CVSS scores, none → medium.
 * - Gitleaks has no severity: every leaked secret is high.
 * - Checkov: its `severity` when present (only with a platform key; INFO → low), otherwise medium.
 * - KICS: CRITICAL, HIGH, MEDIUM, LOW as named; INFO and TRACE → low.
 * - Semgrep: CRITICAL → critical; ERROR or HIGH → high; WARNING or MEDIUM → medium; INFO, LOW,
 *   INVENTORY, EXPERIMENT → low; anything else → medium.
 * - SARIF: the import rules (security-severity score, else level).
 *
 * OWASP Top 10 categories (SAST): Semgrep JSON `extra.metadata.owasp`, SARIF rule and result tags
 * `OWASP-A03:2021-...`, in normal form `A03:2021` (domain/backlog/owasp.ts); one identity reported
 * several times keeps every category named.
 *
 * Secrets never leave the scanner output: Gitleaks `Secret`/`Match`, Trivy `Match`/`Code`, KICS
 * values and Semgrep `lines` are not read; a secret finding's title is the rule's description.
 *
 * Output that is not what the tool writes (not JSON of the expected shape, a finding without its
 * rule or location) is garbage: ScanFailure('transient'), never a partial list, since a partial
 * list would resolve issues the tool still sees.
 */

type Json = Record<string, unknown>;
type Format = 'cyclonedx' | 'syft-json' | 'grype' | 'trivy' | 'gitleaks' | 'checkov' | 'kics' | 'semgrep' | 'sarif';

export const STEP_ISSUE_TYPE: Readonly<Record<Exclude<ScanStep, 'sbom'>, IssueType>> = {
  vulnerabilities: 'vulnerability', secrets: 'secret', iac: 'iac', sast: 'sast',
};

const STEP_FORMATS: Readonly<Record<ScanStep, readonly Format[]>> = {
  sbom: ['cyclonedx', 'syft-json'],
  vulnerabilities: ['grype', 'trivy', 'sarif'],
  secrets: ['gitleaks', 'trivy', 'sarif'],
  iac: ['checkov', 'kics', 'trivy', 'sarif'],
  sast: ['semgrep', 'sarif'],
};

const FORMAT_NAMES: Readonly<Record<Format, string>> = {
  cyclonedx: 'CycloneDX JSON', 'syft-json': 'Syft JSON', grype: 'Grype JSON', trivy: 'Trivy JSON', gitleaks: 'Gitleaks JSON',
  checkov: 'Checkov JSON', kics: 'KICS JSON', semgrep: 'Semgrep JSON', sarif: 'SARIF 2.1.0',
};

export const MAX_TITLE_LENGTH = 500;
export const MAX_RULE_LENGTH = 512;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const lineOf = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
const title = (v: string): string => {
  const first = v.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
  return first.length > MAX_TITLE_LENGTH ? `${first.slice(0, MAX_TITLE_LENGTH - 1)}…` : first;
};

/** Thrown for output that is not the tool's report. */
function garbage(step: ScanStep, tool: string, why: string): never {
  throw scanFailure('transient', `The ${step} step's output from ${tool} is unusable: ${why}`);
}

function sniff(output: unknown): Format | undefined {
  if (output === null || Array.isArray(output)) {
    if (output === null || output.every((e) => isObject(e) && 'RuleID' in e)) return 'gitleaks';
    if (output.length > 0 && output.every((e) => isObject(e) && 'check_type' in e)) return 'checkov';
    return undefined;
  }
  if (!isObject(output)) return undefined;
  if (Array.isArray(output.runs) && (output.version === '2.1.0' || /sarif/i.test(String(output.$schema ?? '')))) return 'sarif';
  if (output.bomFormat === 'CycloneDX') return 'cyclonedx';
  if (Array.isArray(output.artifacts) && isObject(output.descriptor) && output.descriptor.name === 'syft') return 'syft-json';
  if (Array.isArray(output.matches)) return 'grype';
  if (typeof output.SchemaVersion === 'number' && ('ArtifactName' in output || 'Results' in output)) return 'trivy';
  if (Array.isArray(output.queries) && ('kics_version' in output || 'total_counter' in output || 'severity_counters' in output)) return 'kics';
  if ('check_type' in output || typeof output.checkov_version === 'string') return 'checkov';
  if (Array.isArray(output.results) && !('runs' in output)) return 'semgrep';
  return undefined;
}

/** The format a tool name announces; Syft (CycloneDX or its own JSON) and unknown tools are told by shape. */
function formatByTool(tool: string): Format | undefined {
  const name = tool.toLowerCase();
  const known: Format[] = ['grype', 'trivy', 'gitleaks', 'checkov', 'kics', 'semgrep'];
  return known.find((f) => name.includes(f));
}

/** The format a step's artifact is read as, or garbage. */
function formatOf(step: ScanStep, artifact: StepArtifact): Format {
  const allowed = STEP_FORMATS[step];
  const shaped = sniff(artifact.output);
  if (shaped === 'sarif' && allowed.includes('sarif')) return 'sarif';
  const named = formatByTool(artifact.tool);
  const format = named && allowed.includes(named) ? named : shaped;
  if (!format || !allowed.includes(format)) {
    const expected = allowed.map((f) => FORMAT_NAMES[f]).join(', ');
    const seen = artifact.output === null ? 'null' : Array.isArray(artifact.output) ? 'an array' : typeof artifact.output;
    garbage(step, artifact.tool, `expected ${expected}; got ${shaped ? FORMAT_NAMES[shaped] : seen}.`);
  }
  if (shaped !== format && !(format === 'gitleaks' && artifact.output === null)) {
    garbage(step, artifact.tool, `it is not ${FORMAT_NAMES[format]} (the shape does not match).`);
  }
  return format;
}

const SEVERITY_WORDS: Readonly<Record<string, Severity>> = {
  critical: 'critical', high: 'high', error: 'high', medium: 'medium', moderate: 'medium', warning: 'medium',
  low: 'low', negligible: 'low', info: 'low', informational: 'low', trace: 'low', inventory: 'low', experiment: 'low',
};

function fromScore(score: number | undefined): Severity | undefined {
  if (score === undefined) return undefined;
  return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
}

function severityWord(value: unknown): Severity | undefined {
  return typeof value === 'string' ? SEVERITY_WORDS[value.trim().toLowerCase()] : undefined;
}

/** Highest base score among Grype cvss[] entries (metrics.baseScore). */
function grypeScore(...lists: unknown[]): number | undefined {
  let best: number | undefined;
  for (const list of lists) {
    for (const entry of Array.isArray(list) ? list : []) {
      const metrics = isObject(entry) && isObject(entry.metrics) ? entry.metrics : undefined;
      const score = metrics?.baseScore;
      if (typeof score === 'number' && Number.isFinite(score)) best = Math.max(best ?? 0, score);
    }
  }
  return best;
}

/** Highest V3Score/V2Score in Trivy's CVSS map. */
function trivyScore(cvss: unknown): number | undefined {
  let best: number | undefined;
  if (!isObject(cvss)) return undefined;
  for (const source of Object.values(cvss)) {
    if (!isObject(source)) continue;
    for (const key of ['V40Score', 'V3Score', 'V2Score']) {
      const score = source[key];
      if (typeof score === 'number' && Number.isFinite(score)) best = Math.max(best ?? 0, score);
    }
  }
  return best;
}

/** Findings of one step, one identity once (worst severity, first line, fixable when any is). */
class Collector {
  private readonly byIdentity = new Map<string, StepFinding>();
  private static readonly RANK: Readonly<Record<Severity, number>> = { critical: 4, high: 3, medium: 2, low: 1 };

  add(finding: StepFinding): void {
    const key = `${finding.ruleId}\u0000${finding.path}`;
    const seen = this.byIdentity.get(key);
    if (!seen) {
      this.byIdentity.set(key, finding);
      return;
    }
    if (Collector.RANK[finding.severity] > Collector.RANK[seen.severity]) seen.severity = finding.severity;
    if (seen.line === null) seen.line = finding.line;
    if (finding.fixable === true || (seen.fixable === null && finding.fixable === false)) seen.fixable = finding.fixable;
    if (finding.owaspCategories) seen.owaspCategories = [...new Set([...(seen.owaspCategories ?? []), ...finding.owaspCategories])].sort().slice(0, OWASP_CATEGORIES_PER_ISSUE);
  }

  list(): StepFinding[] {
    return [...this.byIdentity.values()];
  }
}

interface Context {
  step: ScanStep;
  tool: string;
  type: IssueType;
  subPath: string | undefined;
  out: Collector;
}

function finding(ctx: Context, f: Omit<StepFinding, 'type' | 'identifier'> & { identifier?: string | null }): void {
  ctx.out.add({
    ...f,
    type: ctx.type,
    ruleId: f.ruleId.slice(0, MAX_RULE_LENGTH),
    identifier: f.identifier === undefined ? f.ruleId.slice(0, MAX_RULE_LENGTH) : f.identifier,
    title: title(f.title) || f.ruleId,
  });
}

function entries(ctx: Context, value: unknown, what: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) garbage(ctx.step, ctx.tool, `${what} is not an array.`);
  return value.map((entry, i) => (isObject(entry) ? entry : garbage(ctx.step, ctx.tool, `${what}[${i}] is not an object.`)));
}

function required(ctx: Context, value: unknown, what: string): string {
  return text(value) ?? garbage(ctx.step, ctx.tool, `${what} is missing.`);
}

function packagePath(purl: string | undefined, name: string, version: string | undefined): string {
  return purl ?? (version ? `${name}@${version}` : name);
}

// ---- vulnerabilities -------------------------------------------------------------------------

function readGrype(ctx: Context, output: Json): void {
  entries(ctx, output.matches, 'matches').forEach((match, i) => {
    const where = `matches[${i}]`;
    const vulnerability = isObject(match.vulnerability) ? match.vulnerability : garbage(ctx.step, ctx.tool, `${where}.vulnerability is missing.`);
    const artifact = isObject(match.artifact) ? match.artifact : garbage(ctx.step, ctx.tool, `${where}.artifact is missing.`);
    const id = required(ctx, vulnerability.id, `${where}.vulnerability.id`);
    const name = required(ctx, artifact.name, `${where}.artifact.name`);
    const version = text(artifact.version);
    const related = Array.isArray(match.relatedVulnerabilities) ? match.relatedVulnerabilities.filter(isObject) : [];
    const severity = severityWord(vulnerability.severity)
      ?? fromScore(grypeScore(vulnerability.cvss, ...related.map((r) => r.cvss))) ?? 'medium';
    const fix = isObject(vulnerability.fix) ? vulnerability.fix : {};
    const state = typeof fix.state === 'string' ? fix.state.toLowerCase() : '';
    const fixable = state === 'fixed' ? true : state === 'not-fixed' || state === 'wont-fix' ? false : null;
    finding(ctx, {
      ruleId: id, path: packagePath(text(artifact.purl), name, version), severity, line: null,
      title: `${id} in ${name}${version ? ` ${version}` : ''}`, identifier: id,
      packageName: name, packageVersion: version ?? null, fixable,
    });
  });
}

function trivyResults(ctx: Context, output: Json): Json[] {
  return entries(ctx, output.Results, 'Results');
}

function readTrivyVulnerabilities(ctx: Context, output: Json): void {
  trivyResults(ctx, output).forEach((result, r) => {
    entries(ctx, result.Vulnerabilities, `Results[${r}].Vulnerabilities`).forEach((v, i) => {
      const where = `Results[${r}].Vulnerabilities[${i}]`;
      const id = required(ctx, v.VulnerabilityID, `${where}.VulnerabilityID`);
      const name = required(ctx, v.PkgName, `${where}.PkgName`);
      const version = text(v.InstalledVersion);
      const purl = isObject(v.PkgIdentifier) ? text(v.PkgIdentifier.PURL) : undefined;
      const severity = (v.Severity === 'UNKNOWN' ? undefined : severityWord(v.Severity)) ?? fromScore(trivyScore(v.CVSS)) ?? 'medium';
      const status = typeof v.Status === 'string' ? v.Status.toLowerCase() : '';
      const fixable = text(v.FixedVersion) || status === 'fixed'
        ? true
        : ['affected', 'will_not_fix', 'fix_deferred', 'end_of_life'].includes(status) ? false : null;
      finding(ctx, {
        ruleId: id, path: packagePath(purl, name, version), severity, line: null,
        title: text(v.Title) ?? `${id} in ${name}${version ? ` ${version}` : ''}`, identifier: id,
        packageName: name, packageVersion: version ?? null, fixable,
      });
    });
  });
}

// ---- secrets ---------------------------------------------------------------------------------

function readGitleaks(ctx: Context, output: unknown): void {
  entries(ctx, output, 'the leak list').forEach((leak, i) => {
    const ruleId = required(ctx, leak.RuleID, `leak ${i + 1} RuleID`);
    const file = required(ctx, leak.File, `leak ${i + 1} File`);
    finding(ctx, {
      ruleId, path: scannerPath(file, ctx.subPath), severity: 'high', line: lineOf(leak.StartLine),
      title: text(leak.Description) ?? ruleId, packageName: null, packageVersion: null, fixable: null,
    });
  });
}

function readTrivySecrets(ctx: Context, output: Json): void {
  trivyResults(ctx, output).forEach((result, r) => {
    const secrets = entries(ctx, result.Secrets, `Results[${r}].Secrets`);
    if (!secrets.length) return;
    const file = required(ctx, result.Target, `Results[${r}].Target`);
    secrets.forEach((s, i) => {
      const ruleId = required(ctx, s.RuleID, `Results[${r}].Secrets[${i}].RuleID`);
      finding(ctx, {
        ruleId, path: scannerPath(file, ctx.subPath), severity: severityWord(s.Severity) ?? 'high', line: lineOf(s.StartLine),
        title: text(s.Title) ?? ruleId, packageName: null, packageVersion: null, fixable: null,
      });
    });
  });
}

// ---- infrastructure as code ------------------------------------------------------------------

function readCheckov(ctx: Context, output: unknown): void {
  const reports = Array.isArray(output) ? output : [output];
  reports.forEach((report, r) => {
    if (!isObject(report)) garbage(ctx.step, ctx.tool, `report ${r + 1} is not an object.`);
    if (report.results === undefined) {
      // `checkov -o json` with nothing to check prints its summary counters only.
      if (typeof report.checkov_version === 'string' && !report.failed) return;
      garbage(ctx.step, ctx.tool, `report ${r + 1} has no results.`);
    }
    if (!isObject(report.results)) garbage(ctx.step, ctx.tool, `report ${r + 1} results is not an object.`);
    entries(ctx, report.results.failed_checks, `report ${r + 1} failed_checks`).forEach((check, i) => {
      const where = `report ${r + 1} failed_checks[${i}]`;
      const ruleId = required(ctx, check.check_id, `${where}.check_id`);
      const file = required(ctx, check.file_path ?? check.repo_file_path, `${where}.file_path`);
      const range = Array.isArray(check.file_line_range) ? check.file_line_range : [];
      finding(ctx, {
        ruleId, path: scannerPath(file, ctx.subPath), severity: severityWord(check.severity) ?? 'medium', line: lineOf(range[0]),
        title: text(check.check_name) ?? ruleId, packageName: null, packageVersion: null, fixable: null,
      });
    });
  });
}

function readKics(ctx: Context, output: Json): void {
  entries(ctx, output.queries, 'queries').forEach((query, q) => {
    const ruleId = required(ctx, query.query_id, `queries[${q}].query_id`);
    const severity = severityWord(query.severity) ?? 'medium';
    entries(ctx, query.files, `queries[${q}].files`).forEach((file, i) => {
      finding(ctx, {
        ruleId, path: scannerPath(required(ctx, file.file_name, `queries[${q}].files[${i}].file_name`), ctx.subPath), severity,
        line: lineOf(file.line), title: text(query.query_name) ?? ruleId, packageName: null, packageVersion: null, fixable: null,
      });
    });
  });
}

function readTrivyMisconfigurations(ctx: Context, output: Json): void {
  trivyResults(ctx, output).forEach((result, r) => {
    const misconfigurations = entries(ctx, result.Misconfigurations, `Results[${r}].Misconfigurations`);
    if (!misconfigurations.length) return;
    const file = required(ctx, result.Target, `Results[${r}].Target`);
    misconfigurations.forEach((m, i) => {
      if (m.Status !== undefined && m.Status !== 'FAIL') return;
      const ruleId = required(ctx, m.AVDID ?? m.ID, `Results[${r}].Misconfigurations[${i}].ID`);
      const cause = isObject(m.CauseMetadata) ? m.CauseMetadata : {};
      finding(ctx, {
        ruleId, path: scannerPath(file, ctx.subPath), severity: severityWord(m.Severity) ?? 'medium', line: lineOf(cause.StartLine),
        title: text(m.Title) ?? ruleId, packageName: null, packageVersion: null, fixable: null,
      });
    });
  });
}

// ---- static analysis -------------------------------------------------------------------------

/** A finding's OWASP categories (domain/backlog/owasp.ts), only when it has some. */
const owasp = (categories: string[]) => (categories.length ? { owaspCategories: categories } : {});

function readSemgrep(ctx: Context, output: Json): void {
  entries(ctx, output.results, 'results').forEach((result, i) => {
    const ruleId = required(ctx, result.check_id, `results[${i}].check_id`);
    const file = required(ctx, result.path, `results[${i}].path`);
    const extra = isObject(result.extra) ? result.extra : {};
    if (extra.is_ignored === true) return;
    const start = isObject(result.start) ? result.start : {};
    finding(ctx, {
      ruleId, path: scannerPath(file, ctx.subPath), severity: severityWord(extra.severity) ?? 'medium', line: lineOf(start.line),
      title: text(extra.message) ?? ruleId, packageName: null, packageVersion: null, fixable: null,
      ...owasp(owaspCategoriesOfSemgrep(isObject(extra.metadata) ? extra.metadata.owasp : undefined)),
    });
  });
}

// ---- SARIF from any tool ---------------------------------------------------------------------

/**
 * Scanner SARIF carries the scanner's own view of paths (absolute under the mount, or file://
 * URIs); the import parser refuses those, so they are made relative first. Everything else
 * follows the SARIF import rules.
 */
function relativeSarif(log: Json): Json {
  const copy = JSON.parse(JSON.stringify(log)) as Json;
  const fix = (location: unknown) => {
    if (!isObject(location) || typeof location.uri !== 'string') return;
    if (/^(file:|\/|\\|[A-Za-z]:)/.test(location.uri)) {
      location.uri = scannerPath(location.uri).split('/').map(encodeURIComponent).join('/');
      delete location.uriBaseId;
    }
  };
  for (const run of Array.isArray(copy.runs) ? copy.runs : []) {
    if (!isObject(run)) continue;
    for (const artifact of Array.isArray(run.artifacts) ? run.artifacts : []) if (isObject(artifact)) fix(artifact.location);
    for (const result of Array.isArray(run.results) ? run.results : []) {
      if (!isObject(result)) continue;
      for (const location of Array.isArray(result.locations) ? result.locations : []) {
        if (isObject(location) && isObject(location.physicalLocation)) fix(location.physicalLocation.artifactLocation);
      }
    }
  }
  return copy;
}

function readSarif(ctx: Context, output: Json): void {
  let parsed;
  try {
    parsed = parseSarif(JSON.stringify(relativeSarif(output)), { boundStrings: false });
  } catch (error) {
    if (error instanceof ImportRefusal) garbage(ctx.step, ctx.tool, error.message);
    throw error;
  }
  for (const run of parsed.runs) {
    for (const f of run.findings) {
      finding(ctx, {
        ruleId: f.ruleId, path: scannerPath(f.path, ctx.subPath), severity: f.severity, line: f.line, title: f.message || f.ruleId,
        packageName: null, packageVersion: null, fixable: null, toolName: run.toolName, toolVersion: run.toolVersion, ...owasp(f.owaspCategories ?? []),
      });
    }
  }
}

// ---- SBOM ------------------------------------------------------------------------------------

function checkSbom(step: ScanStep, artifact: StepArtifact, format: Format): void {
  const output = artifact.output as Json;
  if (format === 'cyclonedx') {
    if (output.components !== undefined && !Array.isArray(output.components)) garbage(step, artifact.tool, 'components is not an array.');
  } else if (!Array.isArray(output.artifacts)) {
    garbage(step, artifact.tool, 'artifacts is not an array.');
  }
}

/** Every licence statement of a CycloneDX component: ids, names and expressions. */
function cycloneDxLicences(component: Json): Array<{ text: string; expression: boolean }> {
  const found: Array<{ text: string; expression: boolean }> = [];
  for (const entry of Array.isArray(component.licenses) ? component.licenses : []) {
    if (!isObject(entry)) continue;
    const expression = text(entry.expression);
    if (expression) found.push({ text: expression, expression: true });
    const licence = isObject(entry.license) ? entry.license : undefined;
    const id = text(licence?.id) ?? text(licence?.name);
    if (id) found.push({ text: id, expression: false });
  }
  return found;
}

function syftLicences(artifact: Json): Array<{ text: string; expression: boolean }> {
  const found: Array<{ text: string; expression: boolean }> = [];
  for (const entry of Array.isArray(artifact.licenses) ? artifact.licenses : []) {
    if (typeof entry === 'string' && entry.trim()) found.push({ text: entry.trim(), expression: true });
    else if (isObject(entry)) {
      const value = text(entry.spdxExpression) ?? text(entry.value);
      if (value) found.push({ text: value, expression: true });
    }
  }
  return found;
}

/** The version the output says its tool had; null when it says nothing usable. */
export function reportedToolVersion(output: unknown): string | null {
  const usable = (v: unknown) => {
    const s = text(v);
    return s && !/not provided|placeholder|^\[/.test(s) ? s.replace(/^v(?=\d)/, '') : null;
  };
  if (Array.isArray(output)) return output.length && isObject(output[0]) && isObject(output[0].summary) ? usable(output[0].summary.checkov_version) : null;
  if (!isObject(output)) return null;
  if (output.bomFormat === 'CycloneDX' && isObject(output.metadata)) {
    const tools = output.metadata.tools;
    const list = Array.isArray(tools) ? tools : isObject(tools) && Array.isArray(tools.components) ? tools.components : [];
    const syft = list.find((t) => isObject(t) && typeof t.name === 'string' && t.name.toLowerCase() === 'syft') ?? list[0];
    return isObject(syft) ? usable(syft.version) : null;
  }
  if (isObject(output.descriptor)) return usable(output.descriptor.version);
  if (isObject(output.summary)) return usable(output.summary.checkov_version);
  if (isObject(output.Trivy)) return usable(output.Trivy.Version);
  if (typeof output.kics_version === 'string') return usable(output.kics_version);
  if (typeof output.version === 'string' && Array.isArray(output.results)) return usable(output.version);
  return null;
}

export interface NormaliserOptions {
  /** Licence deny-list patterns (default DEFAULT_DISALLOWED_LICENCES). */
  disallowedLicences?: readonly string[];
}

export class ScannerOutputNormaliser implements ArtifactNormaliser {
  private readonly policy: LicencePolicy;

  constructor(options: NormaliserOptions = {}) {
    this.policy = new LicencePolicy(options.disallowedLicences);
  }

  findings(step: ScanStep, artifact: StepArtifact, target: ScanTarget): StepFinding[] {
    const format = formatOf(step, artifact);
    if (step === 'sbom') {
      checkSbom(step, artifact, format);
      return [];
    }
    const ctx: Context = {
      step, tool: artifact.tool, type: STEP_ISSUE_TYPE[step], out: new Collector(),
      subPath: target.kind === 'repository' ? target.subPath : undefined,
    };
    const output = artifact.output as Json;
    switch (format) {
      case 'grype': readGrype(ctx, output); break;
      case 'trivy':
        if (step === 'vulnerabilities') readTrivyVulnerabilities(ctx, output);
        else if (step === 'secrets') readTrivySecrets(ctx, output);
        else readTrivyMisconfigurations(ctx, output);
        break;
      case 'gitleaks': readGitleaks(ctx, artifact.output); break;
      case 'checkov': readCheckov(ctx, artifact.output); break;
      case 'kics': readKics(ctx, output); break;
      case 'semgrep': readSemgrep(ctx, output); break;
      case 'sarif': readSarif(ctx, output); break;
      default: garbage(step, artifact.tool, `${FORMAT_NAMES[format]} is not read for this step.`);
    }
    return ctx.out.list();
  }

  disallowedLicences(artifact: StepArtifact): Array<{ component: string; licence: string }> {
    const format = formatOf('sbom', artifact);
    checkSbom('sbom', artifact, format);
    const output = artifact.output as Json;
    const found = new Map<string, { component: string; licence: string }>();
    const report = (component: string, licence: string) => found.set(`${component}\u0000${licence}`, { component, licence });
    const visit = (components: unknown, depth: number) => {
      if (depth > 32 || !Array.isArray(components)) return;
      for (const component of components) {
        if (!isObject(component)) continue;
        const name = text(component.name);
        if (name) {
          const id = text(component.purl) ?? (text(component.version) ? `${name}@${text(component.version)}` : name);
          for (const licence of cycloneDxLicences(component)) {
            if (licence.expression ? this.policy.deniesExpression(licence.text) : this.policy.deniesId(licence.text)) report(id, licence.text);
          }
        }
        visit(component.components, depth + 1);
      }
    };
    if (format === 'cyclonedx') visit(output.components, 0);
    else {
      for (const pkg of output.artifacts as unknown[]) {
        if (!isObject(pkg) || !text(pkg.name)) continue;
        const name = text(pkg.name)!;
        const id = text(pkg.purl) ?? (text(pkg.version) ? `${name}@${text(pkg.version)}` : name);
        for (const licence of syftLicences(pkg)) if (this.policy.deniesExpression(licence.text)) report(id, licence.text);
      }
    }
    return [...found.values()];
  }
}

export { SOURCE_MOUNT };
