#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * vigil-gate: asks a Vigil's CI gate about one target, once per pipeline (spec 1 §4.1), and exits
 *   0  the verdict passed
 *   1  the verdict failed
 *   2  the gate could not be asked (usage, network, 401, 403, 404, 400, 429, 5xx, an unreadable answer)
 *   3  the verdict failed and --advisory accepts it
 * Optionally waits first until the repository has no scan pending or running (spec 1 §8.2: up to
 * 1800 s by default, polling every 10 s).
 */
export const EXIT = { passed: 0, failed: 1, notAsked: 2, advisoryFailed: 3 } as const;

const USAGE = `Usage: vigil-gate [options]

Asks the Vigil CI gate about one target and exits 0 (passed), 1 (failed), 2 (could not ask)
or 3 (failed, accepted with --advisory).

Connection
  --url <url>              Vigil base URL, e.g. https://vigil.example (env VIGIL_URL)
  --key <key>              integration key with scope scan (env VIGIL_GATE_KEY); prefer a file or the
                           environment: a command line is visible to other users of the machine
  --key-file <path>        read the key from a file (env VIGIL_GATE_KEY_FILE)
  --request-timeout <s>    per request, default 60

Target (one of)
  --repository-id <id>
  --container-id <id>
  --repository-url <url>   with --branch <name> (default main)

Policy
  --severity <level>       critical, high (default), medium or low
  --include-triaged        count settled issues (not_affected, will_not_fix, fixed)
  --fixable-only           count only issues with a fix
  --include-plugins        count imported (SARIF) and plugin issues
  --min-line-coverage <p>  fail below this line coverage in percent (Vigil extension)

Behaviour
  --advisory               a failed verdict exits 3 instead of 1
  --wait-for-scan          first wait until the repository has no scan pending or running
                           (needs --repository-id and a key that may also read scans)
  --wait-timeout <s>       default 1800
  --poll-interval <s>      default 10
  --json                   print the verdict as JSON instead of the summary
  --help
`;

class NotAsked extends Error {}

interface Options {
  url: string;
  key: string;
  body: Record<string, unknown>;
  targetLabel: string;
  advisory: boolean;
  waitForScan: boolean;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  requestTimeoutMs: number;
  json: boolean;
}

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  sleep: (ms: number) => Promise<void>;
}

function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new NotAsked(`--${name} takes a number of seconds, not "${value}"`);
  return n * 1000;
}

function positiveInteger(name: string, value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new NotAsked(`--${name} takes a positive integer, not "${value}"`);
  return Number(value);
}

/** Reads the command line and the environment; throws NotAsked with a message for the person. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): Options | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      url: { type: 'string' }, key: { type: 'string' }, 'key-file': { type: 'string' }, 'request-timeout': { type: 'string' },
      'repository-id': { type: 'string' }, 'container-id': { type: 'string' }, 'repository-url': { type: 'string' }, branch: { type: 'string' },
      severity: { type: 'string' }, 'include-triaged': { type: 'boolean' }, 'fixable-only': { type: 'boolean' }, 'include-plugins': { type: 'boolean' },
      'min-line-coverage': { type: 'string' },
      advisory: { type: 'boolean' }, 'wait-for-scan': { type: 'boolean' }, 'wait-timeout': { type: 'string' }, 'poll-interval': { type: 'string' },
      json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';

  const rawUrl = values.url ?? env.VIGIL_URL;
  if (!rawUrl) throw new NotAsked('name the Vigil with --url or VIGIL_URL');
  let base: URL;
  try {
    base = new URL(rawUrl);
  } catch {
    throw new NotAsked(`--url "${rawUrl}" is not a URL (e.g. https://vigil.example)`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new NotAsked(`--url "${rawUrl}" must be http or https`);
  const path = base.pathname.replace(/\/+$/, '');
  const url = `${base.origin}${path.endsWith('/api/v1') ? path : `${path}/api/v1`}`;

  if (values.key !== undefined && values['key-file'] !== undefined) throw new NotAsked('give --key or --key-file, not both');
  let key = values.key;
  const keyFile = values['key-file'] ?? (key === undefined && !env.VIGIL_GATE_KEY ? env.VIGIL_GATE_KEY_FILE : undefined);
  if (keyFile !== undefined) {
    try {
      key = readFileSync(keyFile, 'utf8').trim();
    } catch (error) {
      throw new NotAsked(`cannot read the key file ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  key ??= env.VIGIL_GATE_KEY?.trim();
  if (!key) throw new NotAsked('give the gate key with --key-file, VIGIL_GATE_KEY or --key');

  const named = (['repository-id', 'container-id', 'repository-url'] as const).filter((n) => values[n] !== undefined);
  if (named.length !== 1) throw new NotAsked('name one target: --repository-id, --container-id or --repository-url (with --branch)');
  if (values.branch !== undefined && values['repository-url'] === undefined) throw new NotAsked('--branch goes with --repository-url');
  const body: Record<string, unknown> = {};
  let targetLabel: string;
  if (values['repository-id'] !== undefined) {
    body.repositoryId = positiveInteger('repository-id', values['repository-id']);
    targetLabel = `repository ${body.repositoryId}`;
  } else if (values['container-id'] !== undefined) {
    body.containerId = positiveInteger('container-id', values['container-id']);
    targetLabel = `container image ${body.containerId}`;
  } else {
    body.repositoryUrl = values['repository-url'];
    if (values.branch !== undefined) body.branch = values.branch;
    targetLabel = `${values['repository-url']} (branch ${values.branch ?? 'main'})`;
  }
  const policy: Record<string, unknown> = {};
  if (values.severity !== undefined) policy.severity = values.severity;
  if (values['include-triaged']) policy.include_triaged = true;
  if (values['fixable-only']) policy.fixable_only = true;
  if (values['include-plugins']) policy.include_plugins = true;
  if (values['min-line-coverage'] !== undefined) {
    const p = Number(values['min-line-coverage']);
    if (!Number.isFinite(p)) throw new NotAsked(`--min-line-coverage takes a percentage, not "${values['min-line-coverage']}"`);
    policy.min_line_coverage = p;
  }
  if (Object.keys(policy).length) body.policy = policy;

  return {
    url, key, body, targetLabel,
    advisory: Boolean(values.advisory),
    waitForScan: Boolean(values['wait-for-scan']),
    waitTimeoutMs: seconds('wait-timeout', values['wait-timeout'], 1800),
    pollIntervalMs: seconds('poll-interval', values['poll-interval'], 10),
    requestTimeoutMs: seconds('request-timeout', values['request-timeout'], 60),
    json: Boolean(values.json),
  };
}

interface Answer { status: number; body: any }

async function call(o: Options, method: string, path: string, body?: unknown): Promise<Answer> {
  let res: Response;
  const timeout = AbortSignal.timeout(o.requestTimeoutMs);
  try {
    res = await fetch(`${o.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${o.key}`, accept: 'application/json', 'user-agent': 'vigil-gate', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: timeout,
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    // The time-out is known by its own signal, not by the error's name.
    const why = timeout.aborted ? `no answer within ${secs(o.requestTimeoutMs)} s` : e.cause?.code ?? e.cause?.message ?? e.message;
    throw new NotAsked(`${method} ${o.url}${path} failed: ${why}`);
  }
  const text = await res.text();
  let parsed: unknown = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  return { status: res.status, body: parsed };
}

function refusal(a: Answer, what: string): NotAsked {
  const detail = a.body && typeof a.body === 'object' && typeof a.body.detail === 'string' ? a.body.detail : typeof a.body === 'string' ? a.body.slice(0, 200) : '';
  const hint: Record<number, string> = {
    401: 'the key is missing, unknown, revoked or expired',
    403: 'the key lacks scope scan, or its account may not ask the gate',
    404: 'no such target, or it is outside the key\'s restriction or view',
    429: 'the key spent its request budget; try again later',
  };
  return new NotAsked(`${what} answered ${a.status}${detail ? `: ${detail}` : ''}${hint[a.status] && !detail ? ` (${hint[a.status]})` : ''}`);
}

/** Seconds for a person: 1800, 0.2. */
const secs = (ms: number) => String(Number((ms / 1000).toFixed(1)));

const PENDING = new Set(['pending', 'scanning', 'running', 'queued']);

/** Polls GET /scans?repo_id= until no scan is pending or running, or the wait ends; never fails the gate on its own. */
async function waitForScan(o: Options, io: Io): Promise<void> {
  const id = o.body.repositoryId;
  if (id === undefined) {
    io.out('--wait-for-scan: GET /scans lists scans by repository id; with this target there is nothing to wait on (use --repository-id).');
    return;
  }
  const deadline = Date.now() + o.waitTimeoutMs;
  for (let announced = false; ;) {
    const a = await call(o, 'GET', `/scans?repo_id=${id}&limit=20`);
    if (a.status === 404) { io.out('--wait-for-scan: this Vigil lists no scans (GET /scans answered 404); nothing to wait for.'); return; }
    if (a.status === 403) { io.out('--wait-for-scan: the key may not list scans (it needs scope read as well); not waiting.'); return; }
    if (a.status !== 200) throw refusal(a, 'GET /scans');
    const scans: unknown[] = Array.isArray(a.body) ? a.body : [];
    const waiting = scans.filter((s) => {
      const x = s as { status?: unknown; scan?: { status?: unknown } };
      return PENDING.has(String(x.status ?? x.scan?.status ?? ''));
    }).length;
    if (waiting === 0) {
      if (announced) io.out('--wait-for-scan: no scan pending or running any more.');
      return;
    }
    if (Date.now() + o.pollIntervalMs > deadline) {
      io.out(`--wait-for-scan: ${waiting} scan(s) still pending or running after ${secs(o.waitTimeoutMs)} s; asking the gate anyway.`);
      return;
    }
    if (!announced) io.out(`--wait-for-scan: ${waiting} scan(s) pending or running on ${o.targetLabel}; polling every ${secs(o.pollIntervalMs)} s for up to ${secs(o.waitTimeoutMs)} s.`);
    announced = true;
    await io.sleep(o.pollIntervalMs);
  }
}

interface ShownViolation { rule: string; reason: string; issueId?: number; identifier?: string; severity?: string; package?: string | null }

const SHOWN = 20;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One screen: the verdict, the policy, up to 20 violations as a table, and what the exit code means. */
export function summary(o: Pick<Options, 'targetLabel' | 'advisory'>, verdict: { passed: boolean; violations: ShownViolation[]; policy?: Record<string, unknown>; id?: number }): string[] {
  const lines: string[] = [];
  const policy = verdict.policy ? Object.entries(verdict.policy).map(([k, v]) => `${k}=${v}`).join(' ') : '';
  lines.push(`Vigil gate for ${o.targetLabel}: ${verdict.passed ? 'PASSED' : 'FAILED'}${verdict.id !== undefined ? ` (verdict ${verdict.id})` : ''}`);
  if (policy) lines.push(`Policy: ${policy}`);
  const violations = verdict.violations ?? [];
  if (violations.length) {
    const shown = violations.slice(0, SHOWN);
    const head = ['RULE', 'SEVERITY', 'IDENTIFIER', 'PACKAGE', 'ISSUE'];
    const cells = (v: ShownViolation) => [v.rule, v.severity ?? '', clip(v.identifier ?? '', 40), clip(v.package ?? '-', 40), String(v.issueId)];
    const findings = shown.filter((v) => v.issueId !== undefined).map(cells);
    const widths = head.map((h, i) => Math.max(h.length, ...findings.map((r) => r[i].length), ...(i === 0 ? shown.map((v) => v.rule.length) : [])));
    const row = (r: string[]) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}`;
    lines.push(`Violations (${violations.length}):`);
    lines.push(row(head));
    // A violation about the whole target (observation, coverage) has a rule and a reason only.
    for (const v of shown) lines.push(v.issueId === undefined ? `  ${v.rule.padEnd(widths[0])}  ${v.reason}` : row(cells(v)));
    if (violations.length > SHOWN) lines.push(`  … and ${violations.length - SHOWN} more (--json prints them all; GET /api/v1/gate/verdicts keeps the verdict)`);
  }
  if (verdict.passed) lines.push('Result: passed (exit 0)');
  else if (o.advisory) lines.push('Result: failed, accepted in advisory mode (exit 3)');
  else lines.push('Result: failed (exit 1)');
  return lines;
}

/** The whole client; answers the exit code. */
export async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let o: Options | 'help';
  try {
    o = parseOptions(argv, env);
  } catch (error) {
    io.err(`vigil-gate: ${(error as Error).message}`);
    io.err('Run vigil-gate --help for the options. The gate was not asked (exit 2).');
    return EXIT.notAsked;
  }
  if (o === 'help') {
    io.out(USAGE.trimEnd());
    return EXIT.passed;
  }
  try {
    if (o.waitForScan) await waitForScan(o, io);
    const a = await call(o, 'POST', '/gate', o.body);
    if (a.status !== 200) throw refusal(a, 'POST /gate');
    const verdict = a.body;
    if (!verdict || typeof verdict !== 'object' || typeof verdict.passed !== 'boolean' || !Array.isArray(verdict.violations)) {
      throw new NotAsked('POST /gate answered 200 without a verdict ({passed, violations})');
    }
    if (o.json) io.out(JSON.stringify(verdict, null, 2));
    else for (const line of summary(o, verdict)) io.out(line);
    if (verdict.passed) return EXIT.passed;
    return o.advisory ? EXIT.advisoryFailed : EXIT.failed;
  } catch (error) {
    if (!(error instanceof NotAsked)) throw error;
    io.err(`vigil-gate: could not ask the gate about ${o.targetLabel}: ${error.message}`);
    io.err('Result: not asked (exit 2)');
    return EXIT.notAsked;
  }
}

if (require.main === module) {
  run(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }).then(
    (code) => { process.exitCode = code; },
    (error) => {
      process.stderr.write(`vigil-gate: unexpected error: ${(error as Error).stack ?? error}\nResult: not asked (exit 2)\n`);
      process.exitCode = EXIT.notAsked;
    },
  );
}
