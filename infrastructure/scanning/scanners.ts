import type { ScanStep } from '../../application/ports/scanning';
import { SOURCE_MOUNT } from './scanner-paths';

/**
 * The five scanners the built-in executor runs, one after the other (spec 1 §1.2), each from an
 * image pinned by digest (§8.3 VIGIL_IMAGE_<STEP> overrides one; an override must name a digest).
 *
 * Default images. The digests were NOT resolved from a registry by us: the machine this was written
 * on has no registry access. Each is the digest that several unrelated public repositories pin for
 * that release tag (found in their Dockerfiles, Makefiles and CI files), which is strong evidence
 * but not proof. Before a release, confirm each with
 *   docker buildx imagetools inspect <image>   (the digest printed must be the one below)
 * and replace any that differ. Pinning by digest means a moved tag cannot change what runs.
 *
 * | Step | Tool | Why this one |
 * |---|---|---|
 * | sbom | Syft 1.51.1 | Anchore's SBOM generator: CycloneDX JSON from a directory or an image archive, dozens of ecosystems, no network needed |
 * | vulnerabilities | Grype 0.118.0 | matches Syft's SBOM directly (same vendor, same package identities), JSON with fix state; the only step given network, for its database |
 * | secrets | Gitleaks 8.30.1 | the common secret scanner, one static binary, `--redact` keeps secrets out of its report |
 * | iac | Checkov 3.3.9 | Terraform, CloudFormation, Kubernetes, Dockerfile, Helm, ARM in one run; writes JSON on stdout (KICS writes files only); `--soft-fail` |
 * | sast | Semgrep 1.86.0 | multi-language rules, JSON on stdout |
 *
 * Network: every step runs with NetworkMode "none" except the vulnerability matcher, which
 * downloads and refreshes its database (kept in VIGIL_VULNERABILITY_DB_DIR), and the SAST step,
 * whose rules come from the Semgrep registry (`--config p/default`; there is no rule set inside
 * the image, so without network it has nothing to run; `--metrics off` sends no usage data).
 */
export interface ScannerDefinition {
  step: ScanStep;
  /** Tool name recorded on the artifact (and read by the normaliser). */
  tool: string;
  defaultImage: string;
  /** 'none' or 'bridge' (the engine's default network). */
  network: 'none' | 'bridge';
  /** Exit codes that mean "ran" (the output is then parsed); any other is a failure. */
  successExitCodes: readonly number[];
  /** Arguments given to the image's entrypoint. */
  command(source: ScanSource): string[];
  env: readonly string[];
}

/** What a step scans: a directory (mounted at /src) or an image archive (mounted at /image). */
export type ScanSource = { kind: 'directory' } | { kind: 'image-archive'; file: string };

export const IMAGE_MOUNT = '/image';
export const SBOM_MOUNT = '/sbom';
export const SBOM_FILE = 'sbom.json';
export const VULNERABILITY_DB_MOUNT = '/vulnerability-db';

export const SCANNERS: Readonly<Record<ScanStep, ScannerDefinition>> = {
  sbom: {
    step: 'sbom',
    tool: 'syft',
    defaultImage: 'anchore/syft:v1.51.1@sha256:95fe0835e5bebc6f8b1f8acef68d47d63d594ef4c0f25c097ff853b23cbac74c',
    network: 'none',
    successExitCodes: [0],
    command: (source) => [
      'scan', source.kind === 'directory' ? `dir:${SOURCE_MOUNT}` : `docker-archive:${IMAGE_MOUNT}/${source.file}`,
      '-o', 'cyclonedx-json', '-q',
    ],
    env: ['SYFT_CHECK_FOR_APP_UPDATE=false'],
  },
  vulnerabilities: {
    step: 'vulnerabilities',
    tool: 'grype',
    defaultImage: 'anchore/grype:v0.118.0@sha256:8a93fc48da96bd6ec5981279d099b69de11541dc68fdf222fb9161f8ff284af7',
    network: 'bridge',
    // grype exits 1 only with --fail-on, which is not given: 0 is the one success.
    successExitCodes: [0],
    command: () => [`sbom:${SBOM_MOUNT}/${SBOM_FILE}`, '-o', 'json', '-q'],
    env: ['GRYPE_CHECK_FOR_APP_UPDATE=false', `GRYPE_DB_CACHE_DIR=${VULNERABILITY_DB_MOUNT}`, 'GRYPE_DB_AUTO_UPDATE=true'],
  },
  secrets: {
    step: 'secrets',
    tool: 'gitleaks',
    defaultImage: 'zricethezav/gitleaks:v8.30.1@sha256:c00b6bd0aeb3071cbcb79009cb16a60dd9e0a7c60e2be9ab65d25e6bc8abbb7f',
    network: 'none',
    // gitleaks exits 1 when it found leaks: that is a successful scan with findings. An error
    // also exits 1, but then it writes no JSON report, which the output check catches.
    successExitCodes: [0, 1],
    command: () => ['dir', SOURCE_MOUNT, '--report-format', 'json', '--report-path', '/dev/stdout', '--redact', '--no-banner', '--log-level', 'error'],
    env: [],
  },
  iac: {
    step: 'iac',
    tool: 'checkov',
    // Bare digest: the pinning repositories give it for Checkov 3.3.9.
    defaultImage: 'bridgecrew/checkov@sha256:12a62da01af22654883aee3b9da18ba4297f123f5122663bf65235db37934144',
    network: 'none',
    // --soft-fail: failed checks exit 0; any non-zero exit is an error of Checkov itself.
    successExitCodes: [0],
    command: () => ['-d', SOURCE_MOUNT, '-o', 'json', '--soft-fail', '--compact', '--quiet', '--skip-download'],
    env: [],
  },
  sast: {
    step: 'sast',
    tool: 'semgrep',
    defaultImage: 'semgrep/semgrep:1.86.0@sha256:a9ea2d5621c29d815d90c2a3b2f9571da8972ef4ff855c9e4902681730240e35',
    network: 'bridge',
    // Without --error, findings exit 0; 1 and above are Semgrep errors (2 fatal, 7 bad config ...).
    successExitCodes: [0],
    command: () => ['semgrep', 'scan', '--config', 'p/default', '--json', '--metrics', 'off', '--disable-version-check', '--quiet', SOURCE_MOUNT],
    env: ['SEMGREP_SEND_METRICS=off', 'SEMGREP_ENABLE_VERSION_CHECK=0'],
  },
};

/** The settings that override a step's image (spec 1 §8.3: one per scanner). */
export const IMAGE_SETTINGS: Readonly<Record<ScanStep, string>> = {
  sbom: 'VIGIL_IMAGE_SBOM',
  vulnerabilities: 'VIGIL_IMAGE_VULNERABILITIES',
  secrets: 'VIGIL_IMAGE_SECRETS',
  iac: 'VIGIL_IMAGE_IAC',
  sast: 'VIGIL_IMAGE_SAST',
};

/** Steps that scan an image target: the SBOM of the image and its vulnerabilities. */
export const IMAGE_TARGET_STEPS: readonly ScanStep[] = ['sbom', 'vulnerabilities'];

/** "v1.51.1" from "anchore/syft:v1.51.1@sha256:..."; null without a tag. */
export function tagOf(image: string): string | null {
  const beforeDigest = image.split('@')[0];
  const slash = beforeDigest.lastIndexOf('/');
  const colon = beforeDigest.indexOf(':', slash + 1);
  return colon === -1 ? null : beforeDigest.slice(colon + 1).replace(/^v(?=\d)/, '');
}
