import { refuse } from './import-refusal';

/**
 * Where a SARIF finding is, as a path relative to the repository root (spec §4.3: "Locations are
 * relative to the repository root; absolute paths, a location outside the tree, a `..` or a URL
 * refuse the whole report"). The normalised path is part of an imported issue's identity
 * (§2.3, S1.2.3-08), so two spellings of one file must give one string.
 */

/** A URI scheme ("file:", "http:", "urn:"); a single letter followed by ":" is a Windows drive. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const DRIVE = /^[A-Za-z]:/;
// NUL and other control characters (C0, DEL, C1) cannot be part of a stored path (and Postgres text refuses NUL).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Normalise a repository-relative path for issue identity: backslashes become "/", "." and empty
 * segments disappear (so "./src//a.c", "src\\a.c" and "src/a.c/" all give "src/a.c"), "." alone
 * gives "" (the repository itself). Anything that is not inside the tree refuses the report: a
 * leading "/" or "\\" (absolute or UNC), a drive letter, a URL, or any ".." segment, even one
 * that would collapse ("a/../b"): the spec refuses a `..` outright.
 */
export function normalisePath(path: string): string {
  const p = path.replace(/\\/g, '/');
  if (p.startsWith('/')) refuse(`The location "${path}" is an absolute path; locations must be relative to the repository root.`);
  if (DRIVE.test(p)) refuse(`The location "${path}" is an absolute Windows path; locations must be relative to the repository root.`);
  if (SCHEME.test(p)) refuse(`The location "${path}" is a URL; locations must be paths relative to the repository root.`);
  if (CONTROL.test(p)) refuse(`The location ${JSON.stringify(path)} contains a control character.`);
  const kept: string[] = [];
  for (const segment of p.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') refuse(`The location "${path}" contains "..", which may point outside the repository; locations must stay inside it.`);
    kept.push(segment);
  }
  return kept.join('/');
}

/** Percent-decoding of a URI reference; a malformed escape keeps the text as written. */
function percentDecode(uri: string): string {
  if (!uri.includes('%')) return uri;
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/**
 * A relative URI reference to a normalised path. The scheme / absolute checks run on the text as
 * written (so "file:///x" is called a URL) and again after percent-decoding (so "%2E%2E/x" or
 * "%2Fetc/passwd" cannot slip through). Surrounding whitespace is dropped: a URI cannot contain a
 * literal space, and real logs (SARIF spec appendix K) carry " src/".
 */
function uriToPath(uri: string): string {
  const written = uri.trim();
  normalisePath(written);
  return normalisePath(percentDecode(written));
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Resolves artifactLocation objects of one run. uriBaseId names a base in run.originalUriBaseIds:
 * - an undeclared base (CodeQL's "%SRCROOT%"), a base without uri (the SARIF tutorial's REPOROOT)
 *   or a base whose uri is absolute (a tool's view of its checkout, e.g. "file:///C:/work/") is
 *   the repository root;
 * - a base with a relative uri ("src/" on REPOROOT) adds that prefix, following its own base.
 * The location's uri itself must be relative whatever its base says.
 */
export class RunLocations {
  private readonly basePrefixes = new Map<string, string>();

  constructor(
    private readonly bases: unknown,
    private readonly artifacts: unknown,
    private readonly label: string,
  ) {}

  /** Path of one artifactLocation ("" when it names the repository itself). */
  pathOf(artifactLocation: unknown): string {
    if (!isObject(artifactLocation)) refuse(`${this.label}: a location's artifactLocation is not an object.`);
    let location: Json = artifactLocation;
    if (location.uri === undefined && location.index !== undefined) location = this.artifact(location.index);
    const { uri } = location;
    if (uri === undefined) return this.baseOf(location.uriBaseId);
    if (typeof uri !== 'string') refuse(`${this.label}: a location's uri is not a string.`);
    const relative = uriToPath(uri);
    const prefix = this.baseOf(location.uriBaseId);
    return prefix && relative ? `${prefix}/${relative}` : prefix || relative;
  }

  /** artifactLocation given only as an index into run.artifacts (Fortify's converter does this). */
  private artifact(index: unknown): Json {
    const list = Array.isArray(this.artifacts) ? this.artifacts : [];
    const entry = typeof index === 'number' && Number.isInteger(index) && index >= 0 ? list[index] : undefined;
    if (!isObject(entry) || !isObject(entry.location)) {
      refuse(`${this.label}: a location points at artifact ${String(index)}, which the run does not list.`);
    }
    return entry.location;
  }

  private baseOf(id: unknown, seen: string[] = []): string {
    if (id === undefined || id === null) return '';
    if (typeof id !== 'string') refuse(`${this.label}: a uriBaseId is not a string.`);
    const cached = this.basePrefixes.get(id);
    if (cached !== undefined) return cached;
    if (seen.includes(id)) refuse(`${this.label}: the uriBaseId "${id}" is defined in terms of itself.`);
    const entry = isObject(this.bases) ? this.bases[id] : undefined;
    let prefix = '';
    if (isObject(entry) && typeof entry.uri === 'string') {
      const written = entry.uri.trim();
      const absolute = SCHEME.test(written) || written.startsWith('/') || written.startsWith('\\');
      if (!absolute) {
        const own = uriToPath(written);
        const parent = this.baseOf(entry.uriBaseId, [...seen, id]);
        prefix = parent && own ? `${parent}/${own}` : parent || own;
      }
    }
    this.basePrefixes.set(id, prefix);
    return prefix;
  }
}
