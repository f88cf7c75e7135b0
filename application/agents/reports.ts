import { refuse } from '../../domain/shared/decider';
import { MAX_REASON_LENGTH } from '../../domain/scans/policy';
import { SCAN_STEPS, ScanArtifacts, ScanResult } from '../ports/scanning';

/**
 * The bodies an agent posts, read from the bytes it signed (ADR 0017): bounded, refused with 400 when
 * malformed, nothing written. A result's duration is ISO 8601 text; a number of seconds from an older
 * agent is accepted and written as ISO 8601 (S1.4.7-04/05).
 */
const ISO_DURATION = /^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$/;
const MAX_LANGUAGES = 200;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;

function parseJson(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw refuse.invalid('The body is not JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw refuse.invalid('The body is a JSON object.');
  return parsed as Record<string, unknown>;
}

function attemptOf(body: Record<string, unknown>): number {
  const a = body.attempt;
  if (typeof a !== 'number' || !Number.isInteger(a) || a < 1 || a > 3) throw refuse.invalid('attempt names the attempt reported: 1, 2 or 3.');
  return a;
}

export function durationText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value > 10 * 365 * 86_400) throw refuse.invalid('duration in seconds is a non-negative number.');
    return `PT${Number(value.toFixed(3))}S`;
  }
  if (typeof value !== 'string' || value.length > 40 || !ISO_DURATION.test(value)) throw refuse.invalid('duration is an ISO 8601 duration such as PT42S (or a number of seconds).');
  return value;
}

function text(value: unknown, max: number, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || CONTROL.test(value)) throw refuse.invalid(`${what} is one line of 1 to ${max} characters.`);
  return value;
}

export interface ResultReport {
  attempt: number;
  result: ScanResult;
}

export function readResult(body: Buffer): ResultReport {
  const b = parseJson(body);
  const attempt = attemptOf(b);
  const raw = b.artifacts;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw refuse.invalid('artifacts is an object of steps (sbom, vulnerabilities, secrets, iac, sast).');
  const artifacts: ScanArtifacts = {};
  for (const [step, artifact] of Object.entries(raw as Record<string, unknown>)) {
    if (!(SCAN_STEPS as readonly string[]).includes(step)) throw refuse.invalid(`Unknown step "${step.slice(0, 40)}"; steps are ${SCAN_STEPS.join(', ')}.`);
    if (artifact === null) {
      artifacts[step as keyof ScanArtifacts] = null;
      continue;
    }
    const a = artifact as Record<string, unknown>;
    if (!a || typeof a !== 'object' || Array.isArray(a) || !('output' in a)) throw refuse.invalid(`The ${step} artifact is {tool, toolVersion, output} or null.`);
    const toolVersion = a.toolVersion === null || a.toolVersion === undefined ? null : text(a.toolVersion, 100, `The ${step} toolVersion`);
    artifacts[step as keyof ScanArtifacts] = { tool: text(a.tool, 100, `The ${step} tool`), toolVersion, output: a.output };
  }
  let languages: string[] | null = null;
  if (b.languages !== undefined && b.languages !== null) {
    if (!Array.isArray(b.languages) || b.languages.length > MAX_LANGUAGES) throw refuse.invalid(`languages is a list of at most ${MAX_LANGUAGES} names, or null.`);
    languages = b.languages.map((l) => text(l, 64, 'A language'));
  }
  return {
    attempt,
    result: { artifacts, languages, languagesBounded: b.languagesBounded === true, duration: durationText(b.duration) as string },  // null when the agent sent none: the scan reads no duration
  };
}

export interface FailureReport {
  attempt: number;
  kind: 'permanent' | 'transient';
  reason: string;
}

/** One line of at most 1,000 characters; a missing kind reads transient (S1.4.7-07, -09). */
export function readFailure(body: Buffer): FailureReport {
  const b = parseJson(body);
  const attempt = attemptOf(b);
  const reason = text(b.reason, MAX_REASON_LENGTH, 'reason');
  if (b.kind !== undefined && b.kind !== null && b.kind !== 'permanent' && b.kind !== 'transient') throw refuse.invalid('kind is permanent or transient (missing: transient).');
  return { attempt, kind: b.kind === 'permanent' ? 'permanent' : 'transient', reason };
}
