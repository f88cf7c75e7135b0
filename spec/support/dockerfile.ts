import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Runs a Dockerfile's stages with the local toolchain, for a machine that cannot pull the base
 * image: each stage is a directory standing for its root file system, WORKDIR a folder in it,
 * COPY copies from the build context or another stage, RUN runs the command with sh in the
 * stage's working directory and the ENV set so far. What needs the image itself (apt-get as root)
 * is reported as skipped, and `replace` may stand in for a step (reusing an install already on the
 * machine). Only the instructions Vigil's Dockerfile uses are understood; any other fails.
 */
export interface Stage { name: string; root: string; workdir: string; env: Record<string, string>; user: string | null; cmd: string[] | null; healthcheck: string[] | null }

export interface StageRun {
  stages: Map<string, Stage>;
  skipped: string[];
  final: Stage;
}

function instructions(text: string): Array<{ op: string; args: string }> {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    .map((l) => { const m = l.match(/^(\S+)\s+(.*)$/)!; return { op: m[1].toUpperCase(), args: m[2] }; });
}

const json = (args: string) => (args.startsWith('[') ? (JSON.parse(args) as string[]) : ['/bin/sh', '-c', args]);

export function runStages(dockerfile: string, context: string, into: string, options: { skip?: RegExp; replace?: (stage: string, command: string) => ((cwd: string) => void) | null; env?: Record<string, string> } = {}): StageRun {
  const args: Record<string, string> = {};
  const stages = new Map<string, Stage>();
  const skipped: string[] = [];
  let stage: Stage | null = null;
  const resolve = (s: string) => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args[a ?? b] ?? stage?.env[a ?? b] ?? '');
  const inStage = (p: string) => path.join(stage!.root, path.isAbsolute(p) ? p : path.join(stage!.workdir, p));
  for (const { op, args: raw } of instructions(readFileSync(dockerfile, 'utf8'))) {
    if (op === 'ARG') { const [k, v] = raw.split('='); args[k] = v ?? ''; continue; }
    if (op === 'FROM') {
      const m = resolve(raw).match(/^(\S+)(?:\s+AS\s+(\S+))?$/i)!;
      const name = m[2] ?? `stage${stages.size}`;
      stage = { name, root: path.join(into, name), workdir: '/', env: {}, user: null, cmd: null, healthcheck: null };
      mkdirSync(stage.root, { recursive: true });
      stages.set(name, stage);
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    switch (op) {
      case 'WORKDIR': stage.workdir = resolve(raw); mkdirSync(inStage('.'), { recursive: true }); break;
      case 'ENV': for (const m of raw.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[m[1]] = m[2].replace(/^"|"$/g, ''); break;
      case 'COPY': {
        const parts = raw.split(/\s+/);
        const from = parts[0].startsWith('--from=') ? stages.get(parts.shift()!.slice(7)) : null;
        const dest = parts.pop()!;
        for (const src of parts) {
          const source = from ? path.join(from.root, path.isAbsolute(src) ? src : path.join(from.workdir, src)) : path.join(context, src);
          if (!existsSync(source)) throw new Error(`COPY ${src}: not found`);
          const target = dest.endsWith('/') ? path.join(inStage(dest), path.basename(src)) : inStage(dest);
          mkdirSync(path.dirname(target), { recursive: true });
          cpSync(source, target, { recursive: true, dereference: false, verbatimSymlinks: true });
        }
        break;
      }
      case 'RUN': {
        const command = resolve(raw);
        if (options.skip?.test(command)) { skipped.push(`${stage.name}: RUN ${command}`); break; }
        const standIn = options.replace?.(stage.name, command);
        if (standIn) { standIn(inStage('.')); skipped.push(`${stage.name}: RUN ${command} (stood in for)`); break; }
        execFileSync('/bin/sh', ['-c', command], { cwd: inStage('.'), env: { ...process.env, ...options.env, ...stage.env }, stdio: 'pipe', maxBuffer: 64 << 20 });
        break;
      }
      case 'USER': stage.user = raw; break;
      case 'CMD': stage.cmd = json(raw); break;
      case 'HEALTHCHECK': stage.healthcheck = json(raw.replace(/^.*?CMD\s+/, '')); break;
      case 'EXPOSE': case 'VOLUME': case 'STOPSIGNAL': case 'ENTRYPOINT': case 'LABEL': break;
      default: throw new Error(`runStages does not understand ${op}`);
    }
  }
  return { stages, skipped, final: stage! };
}

/** A stand-in for `npm ci` in a stage: the install this checkout already has, linked. */
export function linkNodeModules(from: string) {
  return (cwd: string) => symlinkSync(path.join(from, 'node_modules'), path.join(cwd, 'node_modules'));
}
