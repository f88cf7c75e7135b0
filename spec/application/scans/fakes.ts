import {
  ArtifactNormaliser, ScanArtifacts, ScanExecutor, ScanFailure, ScanJob, ScanResult, ScanStep, ScanTarget, StepArtifact, StepFinding,
} from '../../../application/ports/scanning';

/**
 * Stand-ins at the scanning port (application/ports/scanning.ts): they take the place of Docker and
 * the scanners, nothing else. Each run takes the next scripted behaviour: canned artifacts, a thrown
 * ScanFailure, or a run the spec holds open and finishes itself.
 */
export type Behaviour = (job: ScanJob, heartbeat: () => Promise<void>, signal: AbortSignal) => Promise<ScanResult>;

export interface HeldRun {
  job: ScanJob;
  heartbeat: () => Promise<void>;
  signal: AbortSignal;
  finish(result: ScanResult): void;
  fail(error: unknown): void;
}

export class FakeExecutor implements ScanExecutor {
  readonly jobs: ScanJob[] = [];
  readonly held: HeldRun[] = [];
  private readonly script: Behaviour[] = [];

  /** Forgets the script and the runs seen. */
  reset(): this {
    this.script.length = 0;
    this.jobs.length = 0;
    this.held.length = 0;
    return this;
  }

  /** The next run answers these artifacts. */
  returns(result: ScanResult): this {
    this.script.push(async () => result);
    return this;
  }

  /** The next run throws this failure. */
  throws(failure: unknown): this {
    this.script.push(async () => { throw failure; });
    return this;
  }

  /** The next run stays open until the spec finishes it (see `held`). */
  holds(): this {
    this.script.push((job, heartbeat, signal) => new Promise<ScanResult>((resolve, reject) => {
      this.held.push({ job, heartbeat, signal, finish: resolve, fail: reject });
      signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true });
    }));
    return this;
  }

  async run(job: ScanJob, heartbeat: () => Promise<void>, signal: AbortSignal): Promise<ScanResult> {
    this.jobs.push(job);
    const behaviour = this.script.shift() ?? (async () => result({}));
    return behaviour(job, heartbeat, signal);
  }
}

export interface CannedFinding {
  ruleId: string;
  path?: string;
  severity?: 'critical' | 'high' | 'medium' | 'low';
}

const TYPE: Record<ScanStep, StepFinding['type']> = { sbom: 'license', vulnerabilities: 'vulnerability', secrets: 'secret', iac: 'iac', sast: 'sast' };

/** Reads a canned step output: an array of {ruleId, path?, severity?}; anything else is unreadable. */
export class FakeNormaliser implements ArtifactNormaliser {
  readonly seen: Array<{ step: ScanStep; target: ScanTarget }> = [];

  findings(step: ScanStep, artifact: StepArtifact, target: ScanTarget): StepFinding[] {
    this.seen.push({ step, target });
    if (!Array.isArray(artifact.output)) throw new ScanFailure('transient', `${artifact.tool} output is unreadable`);
    return (artifact.output as CannedFinding[]).map((f) => ({
      ruleId: f.ruleId, path: f.path ?? '', type: TYPE[step], severity: f.severity ?? 'high', line: null, title: f.ruleId, identifier: f.ruleId,
      packageName: null, packageVersion: null, fixable: null,
    }));
  }
}

export const step = (tool: string, findings: CannedFinding[] | unknown): StepArtifact => ({ tool, toolVersion: '1.0', output: findings });

export function result(artifacts: ScanArtifacts, languages: string[] | null = ['TypeScript', 'yml']): ScanResult {
  return { artifacts, languages, languagesBounded: false, duration: 'PT1M30S' };
}
