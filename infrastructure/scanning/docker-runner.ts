import { createWriteStream, promises as fs } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Docker from 'dockerode';
import { ScanFailure } from '../../application/ports/scanning';
import { scanFailure } from './failures';

/**
 * One scanner container, run to its end through the Docker engine (dockerode), with the limits of
 * spec 1 §8.2: a time-out (15 minutes in production) and a memory ceiling (2 GB, swap included),
 * plus a process count bound and a CPU ceiling (the executor gives one core, spec 1 §8.3 sizing).
 * Also: every capability dropped, no-new-privileges, the engine's log driver off (a secret
 * scanner's output is not kept in the engine's logs), stdout captured up to a bound and stderr's
 * tail kept for messages. The container is removed afterwards, whatever happened.
 *
 * Failures are ScanFailure('transient', ...) with a reason naming the step: time-out, killed for
 * memory (OOM), output over its bound, an exit code the tool does not use for success, the engine
 * not answering ("daemon silent"), an image that cannot be pulled.
 */
export interface ContainerMount {
  source: string;
  target: string;
  readOnly: boolean;
}

export interface ContainerSpec {
  /** Names the step in messages, e.g. "The sbom step (syft)". */
  label: string;
  image: string;
  cmd: string[];
  env?: readonly string[];
  mounts: ContainerMount[];
  /** 'none' (no network at all) or an engine network such as 'bridge'. */
  network: string;
  timeoutMs: number;
  memoryBytes: number;
  /** CPU ceiling in cores (NanoCpus); unset: no ceiling. */
  cpus?: number;
  maxOutputBytes: number;
  /** Exit codes that mean the tool ran (default [0]). */
  successExitCodes?: readonly number[];
  /** "uid:gid" to run as (default: the image's user). */
  user?: string;
  labels?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ContainerOutcome {
  exitCode: number;
  stdout: Buffer;
  /** The last bytes of stderr, for messages. */
  stderrTail: string;
}

export interface PullOptions {
  platform?: string | null;
  signal?: AbortSignal;
  /** Default 15 minutes. */
  timeoutMs?: number;
  /** Turns the engine's refusal into a failure of its own (e.g. permanent for an absent image target). */
  classify?: (message: string) => ScanFailure | null;
}

export const DEFAULT_PULL_TIMEOUT_MS = 15 * 60_000;
const STDERR_TAIL = 2000;
const PIDS_LIMIT = 4096;

function describeBytes(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}

function describeDuration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s`;
}

/** Engine errors: the engine down is "daemon silent"; anything else says what the engine said. */
export function engineFailure(action: string, error: unknown): ScanFailure {
  const e = error as { code?: string; statusCode?: number; json?: { message?: string }; message?: string };
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'ECONNRESET') {
    return scanFailure('transient', `The Docker engine does not answer (${e.code}) while trying to ${action}.`);
  }
  const message = (e.json?.message ?? e.message ?? String(error)).replace(/\s+/g, ' ').trim();
  return scanFailure('transient', `The Docker engine refused to ${action}: ${message}`.slice(0, 1000));
}

function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

export class DockerRunner {
  constructor(readonly docker: Docker = new Docker()) {}

  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (error) {
      throw engineFailure('answer a ping', error);
    }
  }

  /** Whether the engine already holds the image. */
  async hasImage(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw engineFailure(`inspect the image ${image}`, error);
    }
  }

  /**
   * Pulls an image (for the given platform). A scanner image that cannot be pulled is an
   * installation problem (transient); `classify` lets an image target call "not found" and
   * "access denied" permanent.
   */
  async pull(image: string, options: PullOptions = {}): Promise<void> {
    const query: Record<string, string> = {};
    if (options.platform) query.platform = options.platform;
    const timeoutMs = options.timeoutMs ?? DEFAULT_PULL_TIMEOUT_MS;
    try {
      const stream = await this.docker.pull(image, query);
      await new Promise<void>((resolve, reject) => {
        const stop = (reason: string) => {
          (stream as unknown as { destroy?: () => void }).destroy?.();
          reject(scanFailure('transient', reason));
        };
        const onAbort = () => stop(`Pulling ${image} was interrupted (the worker is stopping).`);
        const timer = setTimeout(() => stop(`Pulling ${image} timed out after ${describeDuration(timeoutMs)}.`), timeoutMs);
        options.signal?.addEventListener('abort', onAbort, { once: true });
        this.docker.modem.followProgress(stream, (error: Error | null) => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
          if (error) reject(error);
          else resolve();
        });
      });
    } catch (error) {
      if (error instanceof ScanFailure) throw error;
      const message = ((error as { json?: { message?: string } }).json?.message ?? (error as Error).message ?? String(error)).replace(/\s+/g, ' ');
      const classified = options.classify?.(message);
      if (classified) throw classified;
      throw engineFailure(`pull ${image}`, error);
    }
  }

  /** Pulls the image unless the engine has it (scanner images are pinned by digest: present means right). */
  async ensureImage(image: string, signal?: AbortSignal, timeoutMs?: number): Promise<void> {
    if (!(await this.hasImage(image))) await this.pull(image, { signal, timeoutMs });
  }

  /** Writes `docker save <image>` to a file (an archive Syft reads as docker-archive:). */
  async saveImage(image: string, file: string): Promise<void> {
    try {
      const stream = await this.docker.getImage(image).get();
      await pipeline(stream, createWriteStream(file, { mode: 0o600 }));
    } catch (error) {
      await fs.rm(file, { force: true });
      throw engineFailure(`export the image ${image}`, error);
    }
  }

  async run(spec: ContainerSpec): Promise<ContainerOutcome> {
    if (spec.signal?.aborted) throw scanFailure('transient', `${spec.label} did not start: the scan was interrupted (the worker is stopping).`);
    await this.ensureImage(spec.image, spec.signal, spec.timeoutMs);
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer({
        Image: spec.image,
        Cmd: spec.cmd,
        Env: [...(spec.env ?? [])],
        Labels: { 'vigil.scanner': 'true', ...(spec.labels ?? {}) },
        User: spec.user,
        Tty: false,
        OpenStdin: false,
        AttachStdin: false,
        AttachStdout: true,
        AttachStderr: true,
        NetworkDisabled: spec.network === 'none',
        HostConfig: {
          NetworkMode: spec.network,
          Memory: spec.memoryBytes,
          MemorySwap: spec.memoryBytes,
          PidsLimit: PIDS_LIMIT,
          NanoCpus: spec.cpus ? Math.round(spec.cpus * 1e9) : undefined,
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          Mounts: spec.mounts.map((m) => ({ Type: 'bind' as const, Source: m.source, Target: m.target, ReadOnly: m.readOnly })),
          LogConfig: { Type: 'none', Config: {} },
          AutoRemove: false,
        },
      });
    } catch (error) {
      throw engineFailure(`create the container for ${spec.label}`, error);
    }
    try {
      return await this.runCreated(container, spec);
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  private async runCreated(container: Docker.Container, spec: ContainerSpec): Promise<ContainerOutcome> {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let stop: 'timeout' | 'output' | 'aborted' | null = null;
    const kill = (why: 'timeout' | 'output' | 'aborted') => {
      if (stop) return;
      stop = why;
      container.kill().catch(() => undefined);
    };
    const stdoutSink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (stop !== 'output') {
          stdoutBytes += chunk.length;
          if (stdoutBytes > spec.maxOutputBytes) kill('output');
          else stdout.push(chunk);
        }
        done();
      },
    });
    const stderrSink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
        done();
      },
    });

    let attached: NodeJS.ReadWriteStream;
    try {
      attached = await container.attach({ stream: true, stdout: true, stderr: true });
    } catch (error) {
      throw engineFailure(`attach to ${spec.label}`, error);
    }
    const streamEnded = new Promise<void>((resolve) => {
      attached.on('end', resolve);
      attached.on('close', resolve);
      attached.on('error', () => resolve());
    });
    this.docker.modem.demuxStream(attached, stdoutSink, stderrSink);

    const timer = setTimeout(() => kill('timeout'), spec.timeoutMs);
    const onAbort = () => kill('aborted');
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    let state: { ExitCode: number; OOMKilled: boolean };
    try {
      try {
        await container.start();
      } catch (error) {
        throw engineFailure(`start ${spec.label}`, error);
      }
      try {
        await container.wait();
        // The attach stream carries the last bytes after the exit; give it a moment to drain.
        await Promise.race([streamEnded, new Promise((resolve) => setTimeout(resolve, 5000))]);
        state = (await container.inspect()).State;
      } catch (error) {
        throw engineFailure(`wait for ${spec.label}`, error);
      }
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      (attached as unknown as { destroy?: () => void }).destroy?.();
    }

    const said = stderr.trim() ? ` Its last words: ${stderr.trim().slice(-500)}` : '';
    if (stop === 'aborted') throw scanFailure('transient', `${spec.label} was stopped: the scan was interrupted (the worker is stopping).`);
    if (stop === 'timeout') throw scanFailure('transient', `${spec.label} timed out after ${describeDuration(spec.timeoutMs)} and was stopped.`);
    if (stop === 'output') {
      throw scanFailure('transient', `${spec.label} wrote more than ${describeBytes(spec.maxOutputBytes)} of output and was stopped.`);
    }
    if (state.OOMKilled) {
      throw scanFailure('transient', `${spec.label} was killed for using more than its ${describeBytes(spec.memoryBytes)} of memory (out of memory).`);
    }
    const success = spec.successExitCodes ?? [0];
    if (!success.includes(state.ExitCode)) {
      const signal = state.ExitCode > 128 ? ` (signal ${state.ExitCode - 128})` : '';
      throw scanFailure('transient', `${spec.label} exited with code ${state.ExitCode}${signal}.${said}`);
    }
    return { exitCode: state.ExitCode, stdout: Buffer.concat(stdout), stderrTail: stderr };
  }
}
