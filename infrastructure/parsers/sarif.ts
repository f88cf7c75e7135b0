import { refuse } from './import-refusal';
import { RunLocations } from './sarif-locations';
import { decodeUnicodeText } from './text';

export { normalisePath } from './sarif-locations';

/**
 * SARIF 2.1.0 uploads from pipelines (spec §4.3 "SARIF content rules", §7 400 cases).
 * Pure: bytes in, normalised findings out, or an ImportRefusal whose message tells the sender
 * what to fix. The whole document is refused on the first broken rule: an upload replaces the
 * tool's previous one (S1.4.3-35), so half-importing a report would resolve findings wrongly.
 */

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export interface SarifFinding {
  ruleId: string;
  /** Relative to the repository root, forward slashes; "" for a repository-level finding. */
  path: string;
  line: number | null;
  severity: Severity;
  message: string;
  fingerprint?: string;
}

export interface SarifRun {
  toolName: string;
  toolVersion: string | null;
  findings: SarifFinding[];
}

export interface SarifParseResult {
  runs: SarifRun[];
  /** Every result object in the log, findings or not (pass, notApplicable, suppressed). */
  resultsCount: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

export function parseSarif(body: Buffer | string): SarifParseResult {
  const log = readJson(body);
  if (!isObject(log)) refuse('The body is not a SARIF log: a SARIF log is a JSON object with "version" and "runs".');
  if (log.version !== '2.1.0') {
    const declared = typeof log.version === 'string' ? `declares version ${log.version}` : 'declares no version';
    refuse(`The SARIF log ${declared}; only SARIF 2.1.0 is accepted.`);
  }
  if (log.inlineExternalProperties !== undefined) {
    refuse('The SARIF log carries inlineExternalProperties; a report must hold its findings in its runs, not as external properties.');
  }
  if (!Array.isArray(log.runs)) refuse('The SARIF log has no "runs" array.');
  if (log.runs.length === 0) refuse('The SARIF log holds no run; a report needs at least one run naming its tool and carrying its results.');
  let resultsCount = 0;
  const runs = log.runs.map((run, i) => {
    const parsed = parseRun(run, i + 1);
    resultsCount += parsed.resultsCount;
    return parsed.run;
  });
  return { runs, resultsCount };
}

/** The log as JSON, in its own frame: the decoded text (as large as the upload) is gone once it returns. */
function readJson(body: Buffer | string): unknown {
  const text = decodeUnicodeText(body, 'SARIF log');
  try {
    return JSON.parse(text);
  } catch (err) {
    refuse(`The SARIF log is not readable as JSON (${(err as Error).message}).`);
  }
}

/** "name version" per run for the import's tools field; a comma in a version becomes ";" (S1.4.3-04). */
export function toolLabel(run: Pick<SarifRun, 'toolName' | 'toolVersion'>): string {
  return run.toolVersion === null ? run.toolName : `${run.toolName} ${run.toolVersion.replace(/,/g, ';')}`;
}

interface RunContext {
  label: string;
  driver: Json;
  /** tool.extensions as written (a toolComponentReference's index counts every entry). */
  extensions: unknown[];
  /** Every component's rules by id and by guid, for results that name a rule without its component. */
  rules: RuleIndex;
  locations: RunLocations;
}

function parseRun(run: unknown, n: number): { run: SarifRun; resultsCount: number } {
  if (!isObject(run)) refuse(`Run ${n} of the SARIF log is not an object.`);
  const tool = isObject(run.tool) ? run.tool : undefined;
  const driver = tool && isObject(tool.driver) ? tool.driver : undefined;
  const toolName = nonEmpty(driver?.name);
  if (!driver || !toolName) refuse(`Run ${n} of the SARIF log does not name its tool (tool.driver.name).`);
  const label = `Run ${n} (${toolName})`;
  if (run.externalPropertyFileReferences !== undefined) {
    refuse(`${label} links to external property files (externalPropertyFileReferences); a report must carry all its content.`);
  }
  if (objects(run.invocations).some((inv) => inv.executionSuccessful === false)) {
    refuse(`${label} reports a failed execution (executionSuccessful is false); a failed run cannot replace the tool's findings.`);
  }
  if (!Array.isArray(run.results)) {
    refuse(`${label} carries no results array; a run that produced no results is a failure, not zero findings.`);
  }
  const extensions = Array.isArray(tool?.extensions) ? tool.extensions : [];
  const ctx: RunContext = {
    label,
    driver,
    extensions,
    rules: indexRules([driver, ...extensions.filter(isObject)]),
    locations: new RunLocations(run.originalUriBaseIds, run.artifacts, label),
  };
  const findings: SarifFinding[] = [];
  run.results.forEach((result, i) => {
    const finding = parseResult(result, i + 1, ctx);
    if (finding) findings.push(finding);
  });
  const toolVersion = nonEmpty(driver.semanticVersion) ?? nonEmpty(driver.version) ?? null;
  return { run: { toolName, toolVersion, findings }, resultsCount: run.results.length };
}

interface RuleIndex {
  byId: Map<string, Json>;
  /** Keys in lower case: a GUID is the same in either case. */
  byGuid: Map<string, Json>;
}

/** Rule id and guid -> reportingDescriptor, driver first, then extensions (one pass, first wins). */
function indexRules(components: Json[]): RuleIndex {
  const index: RuleIndex = { byId: new Map(), byGuid: new Map() };
  for (const component of components) {
    for (const rule of objects(component.rules)) {
      const id = nonEmpty(rule.id);
      if (id && !index.byId.has(id)) index.byId.set(id, rule);
      const guid = nonEmpty(rule.guid)?.toLowerCase();
      if (guid && !index.byGuid.has(guid)) index.byGuid.set(guid, rule);
    }
  }
  return index;
}

function parseResult(result: unknown, n: number, ctx: RunContext): SarifFinding | null {
  const where = `Result ${n} of ${ctx.label.charAt(0).toLowerCase()}${ctx.label.slice(1)}`;
  if (!isObject(result)) refuse(`${where} is not an object.`);
  const { ruleId, rule, component } = ruleOf(result, ctx, where);
  // Every primary location is checked, findings or not: one location outside the tree refuses the
  // whole report (S1.4.3-24..26). Related locations and code flows are not checked: they are never
  // stored, and real tools (CodeQL) point them at library files outside the checkout.
  const locations = objects(result.locations);
  let path = '';
  let line: number | null = null;
  locations.forEach((location, i) => {
    const physical = isObject(location.physicalLocation) ? location.physicalLocation : undefined;
    if (!physical || physical.artifactLocation === undefined) return;
    const p = ctx.locations.pathOf(physical.artifactLocation);
    if (i === 0) {
      path = p;
      line = startLine(physical.region);
    }
  });
  if (result.kind === 'pass' || result.kind === 'notApplicable' || isSuppressed(result)) return null;
  const finding: SarifFinding = { ruleId, path, line, severity: severityOf(result, rule), message: messageOf(result, rule, component, ctx, ruleId) };
  const fingerprint = firstString(result.fingerprints) ?? firstString(result.partialFingerprints);
  if (fingerprint !== undefined) finding.fingerprint = fingerprint;
  return finding;
}

/**
 * The rule a result names (S1.4.3-23), located as SARIF 2.1.0 says (§3.27.5-3.27.7, §3.52-3.54):
 * the id is ruleId, else rule.id, else the id of the descriptor found by reference; the descriptor
 * (severity, level, message strings) is looked up in the component rule.toolComponent names (an
 * extension by index, any component by guid or by name; the driver without one), by rule.index or
 * ruleIndex into its rules, else by rule.guid, else by id. A result whose id is known still counts
 * when its reference leads nowhere, the descriptor then coming from any component with that id
 * (tools that put rules in extensions without saying so); with no id at all it is refused.
 */
function ruleOf(result: Json, ctx: RunContext, where: string): { ruleId: string; rule: Json | undefined; component: Json } {
  const reference = isObject(result.rule) ? result.rule : undefined;
  const componentReference = reference && isObject(reference.toolComponent) && namesComponent(reference.toolComponent) ? reference.toolComponent : undefined;
  const component = componentReference ? componentOf(componentReference, ctx) : ctx.driver;
  const index = indexValue(reference?.index) ?? indexValue(result.ruleIndex);
  const guid = nonEmpty(reference?.guid);
  const rules: unknown[] = component && Array.isArray(component.rules) ? component.rules : [];
  let rule: Json | undefined;
  if (index !== undefined && isObject(rules[index])) rule = rules[index] as Json;
  if (!rule && guid) rule = objects(rules).find((r) => sameGuid(r.guid, guid)) ?? ctx.rules.byGuid.get(guid.toLowerCase());
  const ruleId = nonEmpty(result.ruleId) ?? nonEmpty(reference?.id) ?? nonEmpty(rule?.id);
  if (!ruleId) refuse(`${where} names no rule${unresolved(ctx, componentReference, component, index, guid)}.`);
  // A hierarchical ruleId ("CA2101/1") belongs to the rule "CA2101".
  const base = ruleId.split('/')[0];
  rule ??= objects(rules).find((r) => r.id === ruleId) ?? objects(rules).find((r) => r.id === base);
  rule ??= ctx.rules.byId.get(ruleId) ?? ctx.rules.byId.get(base);
  return { ruleId, rule, component: component ?? ctx.driver };
}

/** A non-negative integer index; -1 (SARIF's "absent") and anything else are no index. */
function indexValue(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function sameGuid(v: unknown, guid: string): boolean {
  return typeof v === 'string' && v.toLowerCase() === guid.toLowerCase();
}

/** A toolComponentReference that names nothing (no index, guid or name) stands for the driver. */
function namesComponent(ref: Json): boolean {
  return indexValue(ref.index) !== undefined || nonEmpty(ref.guid) !== undefined || nonEmpty(ref.name) !== undefined;
}

/** The component a toolComponentReference names: an extension by index, else any component by guid, else by name. */
function componentOf(ref: Json, ctx: RunContext): Json | undefined {
  const index = indexValue(ref.index);
  if (index !== undefined && isObject(ctx.extensions[index])) return ctx.extensions[index] as Json;
  const components = [ctx.driver, ...ctx.extensions.filter(isObject)];
  const guid = nonEmpty(ref.guid);
  const byGuid = guid ? components.find((c) => sameGuid(c.guid, guid)) : undefined;
  if (byGuid) return byGuid;
  const name = nonEmpty(ref.name);
  return name ? components.find((c) => c.name === name) : undefined;
}

/** What a person needs to mend a reference that leads to no rule. */
function unresolved(ctx: RunContext, componentReference: Json | undefined, component: Json | undefined, index: number | undefined, guid: string | undefined): string {
  if (componentReference && !component) {
    const named = ['index', 'guid', 'name'].filter((k) => componentReference[k] !== undefined).map((k) => `${k} ${JSON.stringify(componentReference[k])}`);
    const count = ctx.extensions.length;
    return `: its rule.toolComponent (${named.join(', ')}) matches no component of the tool (the driver and ${count} extension${count === 1 ? '' : 's'} in tool.extensions)`;
  }
  const owner = component === ctx.driver ? 'tool.driver' : `the extension "${String(component?.name ?? '?')}"`;
  const count = Array.isArray(component?.rules) ? component.rules.length : 0;
  if (index !== undefined) return `: rule index ${index} is outside the ${count} rule${count === 1 ? '' : 's'} of ${owner}`;
  if (guid) return `: rule.guid ${guid} matches no rule of ${owner} or of any other component`;
  return " (ruleId, rule.id, or a rule index into the tool's rules)";
}

/** Suppressed when one suppression is accepted; status absent means accepted (SARIF §3.34.4). */
function isSuppressed(result: Json): boolean {
  return objects(result.suppressions).some((s) => s.status === undefined || s.status === 'accepted');
}

function startLine(region: unknown): number | null {
  const line = isObject(region) ? region.startLine : undefined;
  return typeof line === 'number' && Number.isInteger(line) && line > 0 ? line : null;
}

/**
 * Severity (S1.4.3-27..29): a security-severity score on the result, else on its rule (CVSS-like:
 * 9+ critical, 7+ high, 4+ medium, otherwise low); else level: error high, warning medium,
 * note and none low; no level anywhere reads as warning. A score that is not a number is ignored.
 */
function severityOf(result: Json, rule: Json | undefined): Severity {
  const score = securitySeverity(result.properties) ?? securitySeverity(rule?.properties);
  if (score !== undefined) return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  const configuration = rule && isObject(rule.defaultConfiguration) ? rule.defaultConfiguration : undefined;
  const level = result.level ?? configuration?.level ?? 'warning';
  if (level === 'error') return 'high';
  if (level === 'note' || level === 'none') return 'low';
  return 'medium';
}

function securitySeverity(properties: unknown): number | undefined {
  const raw = isObject(properties) ? properties['security-severity'] : undefined;
  if (typeof raw === 'number') return Number.isFinite(raw) && raw >= 0 ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  if (raw.trim().toLowerCase() === 'none') return 0;
  return /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : undefined;
}

/**
 * The result's text: message.text, else the message string named by message.id in the rule, its
 * component's globalMessageStrings or the driver's (SARIF §3.11.7), with {0}-style arguments
 * filled in (BinSkim, SpotBugs), else markdown, else the rule id.
 */
function messageOf(result: Json, rule: Json | undefined, component: Json, ctx: RunContext, ruleId: string): string {
  const message = isObject(result.message) ? result.message : {};
  if (typeof message.text === 'string') return message.text;
  const id = nonEmpty(message.id);
  if (id) {
    const template =
      messageString(rule?.messageStrings, id) ?? messageString(component.globalMessageStrings, id) ?? messageString(ctx.driver.globalMessageStrings, id);
    if (template !== undefined) {
      const args = Array.isArray(message.arguments) ? message.arguments : [];
      return template.replace(/\{(\d+)\}/g, (whole, i: string) => (args[Number(i)] === undefined ? whole : String(args[Number(i)])));
    }
  }
  if (typeof message.markdown === 'string') return message.markdown;
  return ruleId;
}

function messageString(strings: unknown, id: string): string | undefined {
  const entry = isObject(strings) ? strings[id] : undefined;
  return isObject(entry) && typeof entry.text === 'string' ? entry.text : undefined;
}

function firstString(map: unknown): string | undefined {
  if (!isObject(map)) return undefined;
  for (const value of Object.values(map)) if (typeof value === 'string' && value !== '') return value;
  return undefined;
}
