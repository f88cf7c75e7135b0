import type { Finding } from '../../domain/backlog/issue';

/**
 * The contract between the scan lifecycle (application/scans) and whoever executes a scan: the
 * built-in worker's executor (infrastructure/scanning: git clone + five scanners in containers)
 * today, a remote agent later. Both hand back the same artifacts, which go through one ingestion
 * path (spec 1 §1.3).
 */
export const SCAN_STEPS = ['sbom', 'vulnerabilities', 'secrets', 'iac', 'sast'] as const;
export type ScanStep = (typeof SCAN_STEPS)[number];

export interface ScanTarget {
  kind: 'repository' | 'container';
  id: number;
  /** Repositories: clone URL, branch (never a pipeline's commit), sub-path ('' = root). */
  url?: string;
  branch?: string;
  subPath?: string;
  /** Container images: the reference to pull. */
  image?: string;
  /**
   * The clone credential stored for the repository, unsealed for this run only (never logged,
   * never in an event). Absent: a public clone, or the scanning host's own SSH identity when
   * VIGIL_HOST_SSH allows it.
   */
  credential?: CloneCredential;
}

/**
 * A stored clone credential as the executor receives it. An HTTPS token is bound to its host and
 * user name (handed to git only for that host); an SSH key comes with the host keys pinned for
 * it (OpenSSH known_hosts lines), checked strictly.
 */
export type CloneCredential =
  | { kind: 'https_token'; id: number; host: string; username: string; token: string }
  | { kind: 'ssh_key'; id: number; privateKey: string; knownHosts: string };

export interface ScanJob {
  scanId: number;
  /** 1, 2 or 3. */
  attempt: number;
  target: ScanTarget;
}

/** What one scanner step produced: its tool, and its native output (parsed JSON). */
export interface StepArtifact {
  tool: string;
  toolVersion: string | null;
  output: unknown;
}

/**
 * A step present resolves its backlog: an artifact with no finding means "ran and found nothing".
 * null or missing means "did not run" and resolves nothing (spec 1 §3.1).
 */
export type ScanArtifacts = Partial<Record<ScanStep, StepArtifact | null>>;

export interface ScanResult {
  artifacts: ScanArtifacts;
  /** Languages found in the clone (vocabulary of spec 1 §2.1); null for images or when unknown. */
  languages: string[] | null;
  /** The language count stopped at its bound (then detectedLanguages reads null). */
  languagesBounded: boolean;
  /** ISO 8601 duration, e.g. PT42.5S. */
  duration: string;
}

/**
 * Why a scan could not run. permanent: host key changed or unpinned, authentication refused,
 * repository, branch or sub-path absent, credential unusable, URL refused by the clone guard.
 * transient: network, timeout, 5xx/429, daemon silent, unclassified, lapsed lease.
 */
export class ScanFailure extends Error {
  constructor(readonly kind: 'permanent' | 'transient', readonly reason: string) {
    super(reason.slice(0, 1000));
    this.name = 'ScanFailure';
  }
}

export interface ScanExecutor {
  /** Runs the job; calls `heartbeat` while working (the lease lapses 20 minutes after the last). */
  run(job: ScanJob, heartbeat: () => Promise<void>, signal: AbortSignal): Promise<ScanResult>;
}

/** A finding of a scanner step, before the target's identity and provenance are attached. */
export type StepFinding = Omit<Finding, 'targetKind' | 'targetId' | 'toolKey'>;

export interface ArtifactNormaliser {
  /** The step's native output as findings; throws ScanFailure('transient', ...) on garbage. */
  findings(step: ScanStep, artifact: StepArtifact, target: ScanTarget): StepFinding[];
  /** Licences of the SBOM's components that the licence policy disallows (they count in scorecards). */
  disallowedLicences?(artifact: StepArtifact): Array<{ component: string; licence: string }>;
}
