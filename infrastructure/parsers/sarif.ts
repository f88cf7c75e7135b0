import { ImportRefusal } from '../../domain/imports/import-refusal';
import type { Severity } from '../../domain/gate/severity';
import type { SarifFinding, SarifParseResult, SarifRun } from '../../domain/imports/reports';
import { bounded as boundedText, refuse } from './import-refusal';
import { width } from '../../domain/shared/column-widths';
import { characters, grouped, type TextKind } from '../../domain/shared/text';
import { OWASP_CATEGORIES_PER_ISSUE, owaspCategoriesOfTags } from '../../domain/backlog/owasp';
import { RunLocations } from './sarif-locations';
import { decodeUnicodeText } from './text';

export { normalisePath } from './sarif-locations';
export type { SarifFinding, SarifParseResult, SarifRun } from '../../domain/imports/reports';

/**
 * SARIF 2.1.0 uploads from pipelines (spec §4.3 "SARIF content rules", §7 400 cases).
 * Pure: bytes in, normalised findings out, or an ImportRefusal whose message tells the sender
 * what to fix. The whole document is refused on the first broken rule: an upload replaces the
 * tool's previous one (S1.4.3-35), so half-importing a report would resolve findings wrongly.
 */

/**
 * What a log's strings may be, where they land (issue #17): each identifier fits its column of the
 * `issues` table and holds no control character, a message holds no C0 control but tab, LF and CR
 * (PostgreSQL text refuses U+0000). A refusal names the field by its JSON path in the log.
 */
export const SARIF_LIMITS = {
  toolName: width('issues.tool_name'),
  toolVersion: width('issues.tool_version'),
  ruleId: width('issues.rule_id'),
  path: width('issues.path'),
} as const;

const bounded = (field: string, value: string, max: number, kind: TextKind = 'line') => boundedText('SARIF log', field, value, max, kind);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/**
 * boundStrings false: the scanner normaliser's reading of a scanner's own SARIF, which is never
 * refused for a string (it fits the findings to the columns itself, domain/backlog/fit.ts).
 */
export function parseSarif(body: Buffer | string, options: { boundStrings?: boolean } = {}): SarifParseResult {
  const strict = options.boundStrings !== false;
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
    const parsed = parseRun(run, i, strict);
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

interface RunContext {
  /** Strings bounded (an import) or taken as they are (a scanner's log). */
  strict: boolean;
  label: string;
  /** runs[i], to name a field. */
  at: string;
  driver: Json;
  /** tool.extensions as written (a toolComponentReference's index counts every entry). */
  extensions: unknown[];
  /** Every component's rules by id and by guid, for results that name a rule without its component. */
  rules: RuleIndex;
  locations: RunLocations;
}

function parseRun(run: unknown, index: number, strict: boolean): { run: SarifRun; resultsCount: number } {
  const n = index + 1;
  const at = `runs[${index}]`;
  if (!isObject(run)) refuse(`Run ${n} of the SARIF log is not an object.`);
  const tool = isObject(run.tool) ? run.tool : undefined;
  const driver = tool && isObject(tool.driver) ? tool.driver : undefined;
  const toolName = nonEmpty(driver?.name);
  if (!driver || !toolName) refuse(`Run ${n} of the SARIF log does not name its tool (tool.driver.name).`);
  const versionField = nonEmpty(driver.semanticVersion) ? 'semanticVersion' : nonEmpty(driver.version) ? 'version' : null;
  const toolVersion = versionField ? (driver[versionField] as string) : null;
  if (strict) {
    bounded(`${at}.tool.driver.name`, toolName, SARIF_LIMITS.toolName);
    if (toolVersion !== null) bounded(`${at}.tool.driver.${versionField}`, toolVersion, SARIF_LIMITS.toolVersion);
  }
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
    strict,
    label,
    at,
    driver,
    extensions,
    rules: indexRules([driver, ...extensions.filter(isObject)]),
    locations: new RunLocations(run.originalUriBaseIds, run.artifacts, label),
  };
  const findings: SarifFinding[] = [];
  run.results.forEach((result, i) => {
    const finding = parseResult(result, i, ctx);
    if (finding) findings.push(finding);
  });
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

function parseResult(result: unknown, index: number, ctx: RunContext): SarifFinding | null {
  const where = `Result ${index + 1} of ${ctx.label.charAt(0).toLowerCase()}${ctx.label.slice(1)}`;
  const at = `${ctx.at}.results[${index}]`;
  if (!isObject(result)) refuse(`${where} is not an object.`);
  const { ruleId, rule, component, field: ruleField } = ruleOf(result, ctx, where, at);
  // Every primary location is checked, findings or not: one location outside the tree refuses the
  // whole report (S1.4.3-24..26). Related locations and code flows are not checked: they are never
  // stored, and real tools (CodeQL) point them at library files outside the checkout.
  const locations = objects(result.locations);
  let path = '';
  let line: number | null = null;
  locations.forEach((location, i) => {
    const physical = isObject(location.physicalLocation) ? location.physicalLocation : undefined;
    if (!physical || physical.artifactLocation === undefined) return;
    const p = located(`${at}.locations[${i}].physicalLocation.artifactLocation`, () => ctx.locations.pathOf(physical.artifactLocation));
    if (i === 0) {
      path = p;
      line = startLine(physical.region);
    }
  });
  if (result.kind === 'pass' || result.kind === 'notApplicable' || isSuppressed(result)) return null;
  // What a finding keeps is bounded; a result that is no finding keeps nothing.
  if (ctx.strict) bounded(ruleField, ruleId, SARIF_LIMITS.ruleId);
  // The first location's path is the issue's (issues.path).
  const length = ctx.strict && path.length > SARIF_LIMITS.path ? characters(path) : 0;
  if (length > SARIF_LIMITS.path) {
    refuse(`In the SARIF log, ${at}.locations[0].physicalLocation.artifactLocation names a path of ${grouped(length)} characters; at most ${grouped(SARIF_LIMITS.path)}.`);
  }
  const message = messageOf(result, rule, component, ctx, ruleId);
  if (ctx.strict) bounded(`${at}.${message.field}`, message.text, Infinity, 'free');
  const finding: SarifFinding = { ruleId, path, line, severity: severityOf(result, rule), message: message.text };
  const fingerprint = firstString(result.fingerprints) ?? firstString(result.partialFingerprints);
  if (fingerprint !== undefined) finding.fingerprint = fingerprint;
  const owasp = owaspCategoriesOf(result, rule);
  if (owasp.length) finding.owaspCategories = owasp;
  return finding;
}

/** A rule's OWASP categories, read once per rule: a report of 50,000 results names a few dozen rules. */
const ruleCategories = new WeakMap<Json, string[]>();

/** The OWASP Top 10 categories the rule's tags and the result's own tags name (Semgrep: `OWASP-A03:2021-Injection`). */
function owaspCategoriesOf(result: Json, rule: Json | undefined): string[] {
  let ofRule = rule ? ruleCategories.get(rule) : [];
  if (ofRule === undefined) {
    ofRule = owaspCategoriesOfTags(isObject(rule!.properties) ? rule!.properties.tags : undefined);
    ruleCategories.set(rule!, ofRule);
  }
  const own = isObject(result.properties) ? result.properties.tags : undefined;
  if (own === undefined) return ofRule;
  const ofResult = owaspCategoriesOfTags(own);
  return ofResult.length === 0 ? ofRule : [...new Set([...ofRule, ...ofResult])].sort().slice(0, OWASP_CATEGORIES_PER_ISSUE);
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
function ruleOf(result: Json, ctx: RunContext, where: string, at: string): { ruleId: string; rule: Json | undefined; component: Json; field: string } {
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
  // Where the id was read, to name it in a refusal of its length or characters.
  const field = nonEmpty(result.ruleId) ? `${at}.ruleId` : nonEmpty(reference?.id) ? `${at}.rule.id`
    : `${ctx.at}.tool.${component === ctx.driver ? 'driver' : `extensions[${ctx.extensions.indexOf(component)}]`}.rules[${rules.indexOf(rule)}].id`;
  // A hierarchical ruleId ("CA2101/1") belongs to the rule "CA2101".
  const base = ruleId.split('/')[0];
  const ownRules = component ? rulesById(component) : undefined;
  rule ??= ownRules?.get(ruleId) ?? ownRules?.get(base);
  rule ??= ctx.rules.byId.get(ruleId) ?? ctx.rules.byId.get(base);
  return { ruleId, rule, component: component ?? ctx.driver, field };
}

/**
 * A component's rules by id (first wins), built once per component: a report of 50,000 results
 * looks a rule up for each (a search of the component's rules per result cost a tenth of an import).
 */
const componentRules = new WeakMap<Json, Map<string, Json>>();
function rulesById(component: Json): Map<string, Json> {
  let byId = componentRules.get(component);
  if (!byId) {
    byId = new Map();
    for (const r of objects(component.rules)) {
      const id = nonEmpty(r.id);
      if (id && !byId.has(id)) byId.set(id, r);
    }
    componentRules.set(component, byId);
  }
  return byId;
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

/** A location's refusal names where the location is in the log. */
function located<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ImportRefusal) throw new ImportRefusal(error.status, `${error.message.replace(/\.$/, '')} (at ${field}).`);
    throw error;
  }
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
 * filled in (BinSkim, SpotBugs), else markdown, else the rule id. field names where it came from,
 * below the result.
 */
function messageOf(result: Json, rule: Json | undefined, component: Json, ctx: RunContext, ruleId: string): { text: string; field: string } {
  const message = isObject(result.message) ? result.message : {};
  if (typeof message.text === 'string') return { text: message.text, field: 'message.text' };
  const id = nonEmpty(message.id);
  if (id) {
    const template =
      messageString(rule?.messageStrings, id) ?? messageString(component.globalMessageStrings, id) ?? messageString(ctx.driver.globalMessageStrings, id);
    if (template !== undefined) {
      const args = Array.isArray(message.arguments) ? message.arguments : [];
      const text = template.replace(/\{(\d+)\}/g, (whole, i: string) => (args[Number(i)] === undefined ? whole : String(args[Number(i)])));
      return { text, field: `message (from message string "${id}")` };
    }
  }
  if (typeof message.markdown === 'string') return { text: message.markdown, field: 'message.markdown' };
  return { text: ruleId, field: 'ruleId' };
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
