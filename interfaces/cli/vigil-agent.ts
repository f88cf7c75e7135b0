#!/usr/bin/env node
import { mkdirSync } from 'node:fs';
import { ScanStep } from '../../application/ports/scanning';
import { signingKeyFrom } from '../../infrastructure/crypto/agent-keys';
import { SettingError } from '../../infrastructure/config/units';
import { DockerScanExecutor } from '../../infrastructure/scanning/executor';
import { AGENT_VERSION } from './agent/client';
import { AgentLog, AgentRunner } from './agent/runner';
import { AgentSettings, loadAgentSettings } from './agent/settings';

/**
 * vigil-agent: scans inside a private network for a Vigil control plane (spec 1 §1, §4.7), with the
 * built-in worker's own executor (git clone, five scanners in containers), so its scans produce the
 * same rows. docs/agents.md describes the settings, the protocol and a deployment.
 */
const USAGE = `Usage: vigil-agent [--help] [--version]

Runs scans for a Vigil control plane: long-polls GET /agent/jobs, runs the five scanners with the
local Docker engine, reports signed results. Configured by the environment:

  VIGIL_URL                        the control plane's base URL (required)
  /run/secrets/vigil_agent_token   an API key with scope agent (VIGIL_AGENT_TOKEN_FILE names another file;
                                   VIGIL_AGENT_TOKEN for development only)
  /run/secrets/vigil_agent_signing_key
                                   the Ed25519 private half in base64 (VIGIL_AGENT_SIGNING_KEY_FILE;
                                   VIGIL_AGENT_SIGNING_KEY for development); blank: results on the key alone
  VIGIL_AGENT_MODE                 local (default) or delegated (clone credentials arrive sealed per job)
  VIGIL_AGENT_LABELS               comma-separated labels
  VIGIL_AGENT_WAIT                 long-poll wait, 0 to 30s (default 30s)
  VIGIL_AGENT_RETRY                first pause when the control plane is away (default 10s; doubles, at most 5m)
  VIGIL_AGENT_HEARTBEAT            lease renewal interval (default 60s)
  VIGIL_AGENT_WORK_DIR             workspaces (default /var/lib/vigil/agent-work)
  VIGIL_IMAGE_*, VIGIL_GIT_ALLOWED_HOSTS, VIGIL_HOST_SSH, VIGIL_IMAGE_SCAN_PLATFORM, VIGIL_VULNERABILITY_DB_DIR
                                   as for the built-in worker

SIGTERM stops claiming and waits for the running scans. Logs are JSON lines on standard output.
`;

/** JSON lines: one object per event, with time and level. */
export function jsonLog(write: (line: string) => void = (l) => process.stdout.write(l)): AgentLog {
  const at = (level: string) => (message: string, meta: Record<string, unknown> = {}) => write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...meta })}\n`);
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

export interface AgentOverrides {
  /** Scanner images by step (specs: the stand-in images, which carry no digest). */
  images?: Record<ScanStep, string>;
}

/** Runs until SIGTERM or SIGINT; answers the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, overrides: AgentOverrides = {}): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`vigil-agent ${AGENT_VERSION}\n`);
    return 0;
  }
  const unknown = argv.filter((a) => a.startsWith('-'));
  if (unknown.length) {
    process.stderr.write(`vigil-agent: unknown option ${unknown[0]}\n${USAGE}`);
    return 2;
  }
  const log = jsonLog();
  let settings: AgentSettings;
  let signing;
  try {
    settings = loadAgentSettings(env);
    signing = settings.signingKey ? signingKeyFrom(settings.signingKey) : null;
    mkdirSync(settings.scanners.workDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    const message = error instanceof SettingError ? error.message : `the settings cannot be read: ${(error as Error).message}`;
    log.error(`vigil-agent cannot start: ${message}`);
    return 2;
  }
  if (overrides.images) settings.scanners = { ...settings.scanners, images: overrides.images };
  // A delegated SSH key is held by a private ssh-agent for the clone, never written (S1.4.7-29).
  const executor = new DockerScanExecutor({ settings: settings.scanners, sshKeyInMemory: true });
  const runner = new AgentRunner(settings, executor, log, signing);
  log.info('vigil-agent starting', { version: AGENT_VERSION, url: settings.url, mode: settings.mode, labels: settings.labels, workDir: settings.scanners.workDir, signed: signing !== null });
  const stop = () => { void runner.drain(); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await runner.start();
  await runner.drain();
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then((code) => process.exit(code), (error) => {
    process.stderr.write(`vigil-agent: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  });
}
