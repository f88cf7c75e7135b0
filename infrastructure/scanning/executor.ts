import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  SCAN_STEPS, ScanArtifacts, ScanExecutor, ScanFailure, ScanJob, ScanResult, ScanStep, StepArtifact,
} from '../../application/ports/scanning';
import { CloneGuard } from './clone-guard';
import { scanFailure } from './failures';
import { ContainerMount, DockerRunner } from './docker-runner';
import { cloneRepository, withWorkspace, Workspace } from './git';
import { DEFAULT_LANGUAGE_FILE_BOUND, detectLanguages } from './languages';
import { reportedToolVersion } from './normalise';
import { SOURCE_MOUNT } from './scanner-paths';
import {
  IMAGE_MOUNT, IMAGE_TARGET_STEPS, SBOM_FILE, SBOM_MOUNT, SCANNERS, ScanSource, tagOf, VULNERABILITY_DB_MOUNT,
} from './scanners';
import type { ScannerSettings } from './settings';

/**
 * The built-in worker's executor (spec 1 §1.2): clone the target's branch into a fresh workspace,
 * count its languages, then run the five scanners one after the other, each in its own container
 * from an image pinned by digest (scanners.ts), and hand back their native outputs as artifacts.
 * The workspace is removed after every scan, success or failure.
 *
 * - Repository targets: clone (git.ts, clone guard first), sub-path check, languages (bounded),
 *   then sbom (Syft on the source), vulnerabilities (Grype on Syft's SBOM), secrets (Gitleaks),
 *   iac (Checkov), sast (Semgrep). The source is bind-mounted read-only at /src.
 * - Image targets: the engine pulls the image (VIGIL_IMAGE_SCAN_PLATFORM when set) and exports it
 *   into the workspace; Syft reads that archive without network, Grype matches its SBOM. The
 *   secrets, iac and sast steps do not run on images (null: nothing of theirs is resolved), and no
 *   language is recorded.
 *
 * Each step's stdout (bounded, 128 MiB by default) must be one JSON document; anything else is
 * garbage. Any step failing fails the scan (transient: it is retried), since a scan missing a step
 * would silently stop watching that step's backlog. The heartbeat is called at the start of every
 * step and every `heartbeatIntervalMs` (default 60 s) in between.
 */
export const SCANNER_TIMEOUT_MS = 15 * 60_000;
export const SCANNER_MEMORY_BYTES = 2 * 1024 ** 3;
export const DEFAULT_MAX_OUTPUT_BYTES = 128 * 1024 ** 2;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 60_000;

export interface DockerScanExecutorOptions {
  settings: Pick<ScannerSettings, 'workDir' | 'gitAllowedHosts' | 'hostSsh' | 'images' | 'imageScanPlatform' | 'vulnerabilityDbDir'>;
  runner?: DockerRunner;
  /** Default: a guard over settings.gitAllowedHosts with the system resolver. */
  guard?: CloneGuard;
  /** Per container (spec 1 §8.2: 15 minutes, 2 GB); tests give small ones. */
  timeoutMs?: number;
  memoryBytes?: number;
  /** CPU ceiling per container, in cores (default 1: spec 1 §8.3 sizes a scan at about one core). */
  cpus?: number;
  maxOutputBytes?: number;
  cloneTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  languageFileBound?: number;
  /** Image targets: 'always' pulls (a tag may have moved; default), 'missing' uses a local copy when there is one. */
  targetImagePull?: 'always' | 'missing';
  /** "uid:gid" the scanners run as; default the Vigil process's own when it is not root. */
  user?: string;
  /** A stored SSH key is held by an ssh-agent for the clone instead of a 0600 file (vigil-agent: never a credential on disk). */
  sshKeyInMemory?: boolean;
}

/** ISO 8601 duration, e.g. PT42.5S. */
export function isoDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  return `PT${Number(seconds.toFixed(3))}S`;
}

/** One step's stdout as the JSON document it must be. */
export function parseStepOutput(step: ScanStep, tool: string, stdout: Buffer): unknown {
  const text = stdout.toString('utf8').replace(/^\uFEFF/, '').trim();
  if (!text) throw scanFailure('transient', `The ${step} step (${tool}) wrote no output.`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw scanFailure('transient', `The ${step} step (${tool}) wrote output that is not JSON (${(error as Error).message.slice(0, 200)}).`);
  }
}

function defaultUser(): string | undefined {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  return uid !== undefined && gid !== undefined && uid !== 0 ? `${uid}:${gid}` : undefined;
}

const IMAGE_ABSENT = /not found|manifest unknown|pull access denied|repository does not exist|unauthorized|authentication required|denied/i;

export class DockerScanExecutor implements ScanExecutor {
  private readonly runner: DockerRunner;
  private readonly guard: CloneGuard;
  /** One vulnerability matcher at a time in this process: its database is shared (and downloaded once). */
  private matcherQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DockerScanExecutorOptions) {
    this.runner = options.runner ?? new DockerRunner();
    this.guard = options.guard ?? new CloneGuard({ allowedHosts: options.settings.gitAllowedHosts });
  }

  async run(job: ScanJob, heartbeat: () => Promise<void>, signal: AbortSignal): Promise<ScanResult> {
    const started = performance.now();
    const beat = () => heartbeat().catch(() => undefined);
    const interval = setInterval(beat, this.options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS);
    try {
      await beat();
      const result = await withWorkspace(this.options.settings.workDir, String(job.scanId), (workspace) =>
        job.target.kind === 'container' ? this.scanImage(job, workspace, beat, signal) : this.scanRepository(job, workspace, beat, signal));
      return { ...result, duration: isoDuration(performance.now() - started) };
    } catch (error) {
      if (error instanceof ScanFailure) throw error;
      // A disk full, a work directory that cannot be written...: unclassified, hence transient.
      throw scanFailure('transient', `The scan failed unexpectedly: ${(error as Error).message ?? String(error)}`);
    } finally {
      clearInterval(interval);
    }
  }

  private async scanRepository(job: ScanJob, workspace: Workspace, beat: () => Promise<unknown>, signal: AbortSignal): Promise<Omit<ScanResult, 'duration'>> {
    const { source } = await cloneRepository(job.target, workspace, {
      guard: this.guard, hostSsh: this.options.settings.hostSsh, timeoutMs: this.options.cloneTimeoutMs, sshKeyInMemory: this.options.sshKeyInMemory,
    }, signal);
    this.checkAborted(signal);
    const count = await detectLanguages(source, this.options.languageFileBound ?? DEFAULT_LANGUAGE_FILE_BOUND);
    const artifacts = await this.runSteps(job, workspace, SCAN_STEPS, { kind: 'directory' }, [{ source, target: SOURCE_MOUNT, readOnly: true }], beat, signal);
    return { artifacts, languages: count.languages, languagesBounded: count.bounded };
  }

  private async scanImage(job: ScanJob, workspace: Workspace, beat: () => Promise<unknown>, signal: AbortSignal): Promise<Omit<ScanResult, 'duration'>> {
    const image = job.target.image?.trim();
    if (!image) throw scanFailure('permanent', 'The target names no image.');
    const platform = this.options.settings.imageScanPlatform;
    const present = this.options.targetImagePull === 'missing' && (await this.runner.hasImage(image));
    if (!present) {
      await this.runner.pull(image, {
        platform, signal, timeoutMs: this.options.timeoutMs ?? SCANNER_TIMEOUT_MS,
        classify: (message) => (IMAGE_ABSENT.test(message)
          ? scanFailure('permanent', `The image ${image} cannot be pulled: it does not exist or access is refused (${message.slice(0, 300)}).`)
          : null),
      });
    }
    this.checkAborted(signal);
    await beat();
    const archiveDir = path.join(workspace.root, 'image');
    await fs.mkdir(archiveDir);
    await this.runner.saveImage(image, path.join(archiveDir, 'image.tar'));
    const artifacts = await this.runSteps(job, workspace, IMAGE_TARGET_STEPS, { kind: 'image-archive', file: 'image.tar' },
      [{ source: archiveDir, target: IMAGE_MOUNT, readOnly: true }], beat, signal);
    for (const step of SCAN_STEPS) if (!(step in artifacts)) artifacts[step] = null;
    return { artifacts, languages: null, languagesBounded: false };
  }

  private async runSteps(
    job: ScanJob, workspace: Workspace, steps: readonly ScanStep[], source: ScanSource, sourceMounts: ContainerMount[],
    beat: () => Promise<unknown>, signal: AbortSignal,
  ): Promise<ScanArtifacts> {
    const artifacts: ScanArtifacts = {};
    const sbomDir = path.join(workspace.root, 'sbom');
    await fs.mkdir(sbomDir);
    for (const step of steps) {
      this.checkAborted(signal);
      await beat();
      const mounts = step === 'vulnerabilities' ? await this.matcherMounts(sbomDir) : sourceMounts;
      const artifact = step === 'vulnerabilities'
        ? await this.serialised(() => this.runStep(job, step, source, mounts, signal))
        : await this.runStep(job, step, source, mounts, signal);
      artifacts[step] = artifact;
      if (step === 'sbom') await fs.writeFile(path.join(sbomDir, SBOM_FILE), JSON.stringify(artifact.output), { mode: 0o644 });
    }
    return artifacts;
  }

  private async matcherMounts(sbomDir: string): Promise<ContainerMount[]> {
    const dbDir = this.options.settings.vulnerabilityDbDir;
    await fs.mkdir(dbDir, { recursive: true });
    return [{ source: sbomDir, target: SBOM_MOUNT, readOnly: true }, { source: dbDir, target: VULNERABILITY_DB_MOUNT, readOnly: false }];
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.matcherQueue.then(fn, fn);
    this.matcherQueue = next.catch(() => undefined);
    return next;
  }

  private async runStep(job: ScanJob, step: ScanStep, source: ScanSource, mounts: ContainerMount[], signal: AbortSignal): Promise<StepArtifact> {
    const scanner = SCANNERS[step];
    const image = this.options.settings.images[step];
    const outcome = await this.runner.run({
      label: `The ${step} step (${scanner.tool})`,
      image,
      cmd: scanner.command(source),
      env: [...scanner.env, 'HOME=/tmp'],
      mounts,
      network: scanner.network,
      timeoutMs: this.options.timeoutMs ?? SCANNER_TIMEOUT_MS,
      memoryBytes: this.options.memoryBytes ?? SCANNER_MEMORY_BYTES,
      cpus: this.options.cpus ?? 1,
      maxOutputBytes: this.options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      successExitCodes: scanner.successExitCodes,
      user: this.options.user ?? defaultUser(),
      labels: { 'vigil.scan': String(job.scanId), 'vigil.step': step },
      signal,
    });
    const output = parseStepOutput(step, scanner.tool, outcome.stdout);
    return { tool: scanner.tool, toolVersion: reportedToolVersion(output) ?? tagOf(image), output };
  }

  private checkAborted(signal: AbortSignal): void {
    if (signal.aborted) throw scanFailure('transient', 'The scan was interrupted (the worker is stopping).');
  }
}

/** The executor the composition root binds, from the loaded configuration. */
export function createDockerScanExecutor(settings: ScannerSettings): DockerScanExecutor {
  return new DockerScanExecutor({ settings });
}
