import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FORMATS, Format } from './formats';

export const USAGE = `Usage: vigil-gate [options]

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

Output
  --format <format>        what is printed: text (default), json, sarif, junit or github
                           (GitHub Actions annotations, plus a step summary in $GITHUB_STEP_SUMMARY)
  --output <format>=<path> also write the verdict in that format to a file; repeatable, e.g.
                           --output sarif=vigil-gate.sarif --output junit=vigil-gate.xml
  --json                   the same as --format json

Behaviour
  --advisory               a failed verdict exits 3 instead of 1
  --wait-for-scan          first wait until the repository has no scan pending or running
                           (needs --repository-id and a key that may also read scans)
  --wait-timeout <s>       default 1800
  --poll-interval <s>      default 10
  --version
  --help
`;

/** The gate was not asked: usage, network, a refusal. Exit 2 with this message. */
export class NotAsked extends Error {}

export interface Options {
  url: string;
  key: string;
  body: Record<string, unknown>;
  targetLabel: string;
  advisory: boolean;
  waitForScan: boolean;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  requestTimeoutMs: number;
  format: Format;
  outputs: Array<{ format: Format; path: string }>;
  /** Kept for callers of the earlier client: true when the printed format is json. */
  json: boolean;
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

function formatOf(text: string, where: string): Format {
  if (!(FORMATS as readonly string[]).includes(text)) throw new NotAsked(`${where} takes one of ${FORMATS.join(', ')}, not "${text}"`);
  return text as Format;
}

/** Reads the command line and the environment; throws NotAsked with a message for the person. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): Options | 'help' | 'version' {
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
      json: { type: 'boolean' }, format: { type: 'string' }, output: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) return 'help';
  if (values.version) return 'version';

  if (values.json && values.format !== undefined && values.format !== 'json') throw new NotAsked('--json and --format name different formats; give one');
  const format = values.json ? 'json' : formatOf(values.format ?? 'text', '--format');
  const outputs = (values.output ?? []).map((o) => {
    const at = o.indexOf('=');
    if (at < 1 || at === o.length - 1) throw new NotAsked(`--output takes <format>=<path>, e.g. sarif=vigil-gate.sarif, not "${o}"`);
    const f = formatOf(o.slice(0, at), '--output');
    if (f === 'github') throw new NotAsked('--output github: annotations only work on the standard output; use --format github');
    return { format: f, path: o.slice(at + 1) };
  });

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
    format, outputs, json: format === 'json',
  };
}
