import * as os from 'node:os';
import * as path from 'node:path';
import { SCAN_STEPS, ScanStep } from '../../application/ports/scanning';
import { parseImageReference } from '../../domain/targets/image-reference';
import { parseBoolean, SettingError } from '../config/units';
import { parseAllowedHosts } from './clone-guard';
import { IMAGE_SETTINGS, SCANNERS } from './scanners';

/**
 * The scanning settings (spec 1 §8.3), read with the rest of the configuration at start
 * (infrastructure/config/config.ts). A malformed value stops the start naming the variable.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | VIGIL_WORK_DIR | `<VIGIL_DATA_DIR>/work` (a container composition sets /var/lib/vigil/work, spec 1 §8.3; none ships yet) | one fresh workspace per scan (the clone), removed after it; in a container it must be a host directory mounted at the same absolute path, since the scanner containers bind-mount it by that path |
 * | VIGIL_GIT_ALLOWED_HOSTS | empty | hosts to clone from, comma separated; `*.example.com` matches any name under example.com (not example.com itself); empty: every host except link-local and cloud-metadata addresses |
 * | VIGIL_HOST_SSH | true | an ssh clone URL whose target has no SSH key credential uses the scanning host's own SSH identity (keys, agent, known_hosts); false refuses it. A target's stored key (with its pinned host keys) is used whatever this says (git-credentials.ts) |
 * | VIGIL_IMAGE_SBOM, _VULNERABILITIES, _SECRETS, _IAC, _SAST | pinned digests (scanners.ts) | scanner image override; must name a digest (`name[:tag]@sha256:<64 hex>`) |
 * | VIGIL_IMAGE_SCAN_PLATFORM | none (the engine's own) | platform pulled for image scans, e.g. linux/amd64 |
 * | VIGIL_VULNERABILITY_DB_DIR | `<temporary directory>/vigil-vulnerability-db` | the matcher's database, kept between scans |
 */
export interface ScannerSettings {
  workDir: string;
  gitAllowedHosts: string[];
  hostSsh: boolean;
  images: Record<ScanStep, string>;
  imageScanPlatform: string | null;
  vulnerabilityDbDir: string;
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** An image override: a valid reference that names a digest. */
export function pinnedImage(setting: string, value: string): string {
  let digest: string | null;
  try {
    digest = parseImageReference(value).digest;
  } catch (error) {
    throw new SettingError(setting, `"${value}" is not an image reference (${(error as Error).message}).`);
  }
  if (!digest) throw new SettingError(setting, `"${value}" names no digest; write the image pinned as name[:tag]@sha256:<64 hex digits>.`);
  return value;
}

const PLATFORM = /^[a-z0-9]+\/[a-z0-9_]+(?:\/[a-z0-9]+)?$/;

export function loadScannerSettings(env: Env, dataDir: string): ScannerSettings {
  const images = {} as Record<ScanStep, string>;
  for (const step of SCAN_STEPS) {
    const override = read(env, IMAGE_SETTINGS[step]);
    images[step] = override ? pinnedImage(IMAGE_SETTINGS[step], override) : SCANNERS[step].defaultImage;
  }
  const platform = read(env, 'VIGIL_IMAGE_SCAN_PLATFORM') ?? null;
  if (platform && !PLATFORM.test(platform)) {
    throw new SettingError('VIGIL_IMAGE_SCAN_PLATFORM', `"${platform}" is not a platform; write os/architecture[/variant], e.g. linux/amd64 or linux/arm64/v8.`);
  }
  let gitAllowedHosts: string[];
  try {
    gitAllowedHosts = parseAllowedHosts(read(env, 'VIGIL_GIT_ALLOWED_HOSTS') ?? '');
  } catch (error) {
    throw new SettingError('VIGIL_GIT_ALLOWED_HOSTS', (error as Error).message);
  }
  return {
    workDir: path.resolve(read(env, 'VIGIL_WORK_DIR') ?? path.join(dataDir, 'work')),
    gitAllowedHosts,
    hostSsh: read(env, 'VIGIL_HOST_SSH') === undefined ? true : parseBoolean('VIGIL_HOST_SSH', env.VIGIL_HOST_SSH!),
    images,
    imageScanPlatform: platform,
    vulnerabilityDbDir: path.resolve(read(env, 'VIGIL_VULNERABILITY_DB_DIR') ?? path.join(os.tmpdir(), 'vigil-vulnerability-db')),
  };
}
