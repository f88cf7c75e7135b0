import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface AgentLine {
  time: string;
  level: string;
  message: string;
  [key: string]: unknown;
}

/**
 * A real vigil-agent process (spec/support/run-vigil-agent.ts, TypeScript loaded by tsx inside the
 * one node process, so that kill -9 reaches the agent itself) and its JSON log lines.
 */
export interface AgentProcess {
  child: ChildProcess;
  lines: AgentLine[];
  /** Resolves with the first line (seen or to come) matching; rejects after `timeoutMs`. */
  waitFor(match: (line: AgentLine) => boolean, timeoutMs?: number): Promise<AgentLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

export function startAgentProcess(env: Record<string, string>): AgentProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'spec/support/run-vigil-agent.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: AgentLine[] = [];
  const waiters: Array<{ match: (l: AgentLine) => boolean; resolve: (l: AgentLine) => void }> = [];
  let text = '';
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const raw = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let line: AgentLine;
      try { line = JSON.parse(raw); } catch { continue; }
      lines.push(line);
      for (const w of [...waiters]) if (w.match(line)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(line); }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => { text += chunk.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child, lines, exited, output: () => text,
    waitFor(match, timeoutMs = 60_000) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching agent log line in ${timeoutMs} ms; output:\n${text.slice(-4000)}`)), timeoutMs);
        waiters.push({ match, resolve: (l) => { clearTimeout(timer); resolve(l); } });
      });
    },
  };
}

/** Stops a process if it still runs (SIGKILL), and waits for it. */
export async function ensureStopped(p: AgentProcess | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await p.exited;
}
