import { createHash } from 'node:crypto';
import { refuse } from '../shared/decider';

/**
 * Repository identity (spec 1 §2.1): two URLs name one repository after removing scheme, user part,
 * port, case, a trailing .git and trailing slashes. A repository target is unique on
 * (identity, branch, sub-path); uniquenessKey() names the reservation stream for that triple.
 */

export const DEFAULT_BRANCH = 'main';
const MAX_URL_LENGTH = 2048;
const MAX_BRANCH_LENGTH = 255;
const MAX_SUB_PATH_LENGTH = 1024;

const SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git', 'file']);
const SCHEME_URL = /^([a-z][a-z0-9+.-]*):\/\//i;
// git treats "host:path" as scp-like when the colon comes before any slash.
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:[\]]+|\[[0-9a-f:.]+\]):(?!\/\/)(.+)$/i;
const HOST_LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?';
const HOST = new RegExp(`^(?:\\[[0-9a-f:.]+\\]|${HOST_LABEL}(?:\\.${HOST_LABEL})*)$`, 'i');
// Whitespace and control characters never belong in a clone URL and would split a command line.
const UNSAFE_CHARACTERS = /[\s\u0000-\u001f\u007f\\]/;

const EXPECTED_FORMS =
  'expected https://host/org/repo, ssh://user@host/org/repo, git://host/org/repo, file:///path/to/repo or user@host:org/repo';

interface ParsedRepositoryUrl {
  readonly host: string;
  readonly path: string;
}

function parseRepositoryUrl(raw: unknown): ParsedRepositoryUrl {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse.invalid(`url is required (${EXPECTED_FORMS})`);
  const url = raw.trim();
  if (url.length > MAX_URL_LENGTH) throw refuse.invalid(`url is longer than ${MAX_URL_LENGTH} characters`);
  if (UNSAFE_CHARACTERS.test(url)) throw refuse.invalid('url must not contain spaces, backslashes or control characters');
  if (url.startsWith('-')) throw refuse.invalid(`url "${url}" is not a repository URL (${EXPECTED_FORMS})`);
  return SCHEME_URL.test(url) ? parseSchemeUrl(url) : parseScpLike(url);
}

function parseSchemeUrl(url: string): ParsedRepositoryUrl {
  const scheme = SCHEME_URL.exec(url)![1].toLowerCase();
  if (!SCHEMES.has(scheme)) throw refuse.invalid(`url scheme "${scheme}" is not supported (${EXPECTED_FORMS})`);
  // WHATWG reads "https:///org/repo" as host "org"; a URL without a host is refused instead.
  if (scheme !== 'file' && url.charAt(scheme.length + 3) === '/') throw refuse.invalid(`url "${url}" names no host (${EXPECTED_FORMS})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse.invalid(`url "${url}" is not a valid URL (${EXPECTED_FORMS})`);
  }
  // Events are immutable and copied into backups: a password must never reach one (EVENT-SOURCING trap 6).
  if (parsed.password !== '') throw refuse.invalid('url must not carry a password or token; give the URL without credentials');
  if (parsed.search !== '' || parsed.hash !== '') throw refuse.invalid('url must not carry a query string or fragment');
  const host = parsed.hostname.toLowerCase();
  if (scheme !== 'file') {
    if (host === '') throw refuse.invalid(`url "${url}" names no host (${EXPECTED_FORMS})`);
    if (!HOST.test(host)) throw refuse.invalid(`url host "${parsed.hostname}" is not a valid host name`);
  }
  return { host, path: repositoryPath(parsed.pathname, url) };
}

function parseScpLike(url: string): ParsedRepositoryUrl {
  const match = SCP_LIKE.exec(url);
  // "https:/host/x" (one slash) must not pass for a host called "https".
  if (!match || !HOST.test(match[2]) || SCHEMES.has(match[2].toLowerCase())) throw refuse.invalid(`url "${url}" is not a repository URL (${EXPECTED_FORMS})`);
  // "host:org/repo" is relative to the login directory, which forges map to "/org/repo".
  const path = match[3].startsWith('/') ? match[3] : `/${match[3]}`;
  return { host: match[2].toLowerCase(), path: repositoryPath(path, url) };
}

/** Lower case, then trailing slashes, then one trailing .git, then slashes again ("Repo.git/" and "repo" agree). */
function repositoryPath(path: string, url: string): string {
  const normalised = path.toLowerCase().replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '');
  if (normalised === '') throw refuse.invalid(`url "${url}" names no repository path (${EXPECTED_FORMS})`);
  return normalised;
}

/** The comparable identity of a repository URL, e.g. "git.example/org/repo". Refuses garbage like validateRepositoryUrl. */
export function repositoryIdentity(url: string): string {
  const { host, path } = parseRepositoryUrl(url);
  return `${host}${path}`;
}

/** Refuses (400) anything that is not a clone URL; answers the URL trimmed, as it will be stored and cloned. */
export function validateRepositoryUrl(url: unknown): string {
  parseRepositoryUrl(url);
  return (url as string).trim();
}

/**
 * Branch as stored: defaults to main; refused when git would not accept it as a branch name, and when it
 * starts with "-" so that it can never be read as an option by git clone.
 */
export function normaliseBranch(branch: unknown): string {
  if (branch === undefined || branch === null) return DEFAULT_BRANCH;
  if (typeof branch !== 'string') throw refuse.invalid('branch must be a string');
  const name = branch.trim();
  if (name === '') return DEFAULT_BRANCH;
  if (name.length > MAX_BRANCH_LENGTH) throw refuse.invalid(`branch is longer than ${MAX_BRANCH_LENGTH} characters`);
  const broken =
    /[\s\u0000-\u001f\u007f~^:?*[\\]/.test(name) ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.') ||
    name.endsWith('.lock') ||
    name.includes('..') ||
    name.includes('//') ||
    name.includes('@{') ||
    name === '@' ||
    name.split('/').some((part) => part.startsWith('.'));
  if (broken) throw refuse.invalid(`branch "${name}" is not a valid git branch name`);
  return name;
}

/**
 * Sub-path as stored: '' for the repository root; relative, '/'-separated, without '.' segments or
 * surrounding slashes, so that "./src/", "src" and "/src" are one sub-path. '..' is refused: a scan
 * must never leave its clone.
 */
export function normaliseSubPath(subPath: unknown): string {
  if (subPath === undefined || subPath === null) return '';
  if (typeof subPath !== 'string') throw refuse.invalid('subPath must be a string');
  if (subPath.length > MAX_SUB_PATH_LENGTH) throw refuse.invalid(`subPath is longer than ${MAX_SUB_PATH_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f\\]/.test(subPath)) throw refuse.invalid('subPath must not contain backslashes or control characters');
  const segments = subPath.trim().split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw refuse.invalid('subPath must stay inside the repository ("..")');
  return segments.join('/');
}

/**
 * Names the reservation of (identity, branch, sub-path): SHA-256 hex of the three joined by NUL, which
 * none of them can contain. Fixed length whatever the URL, so it fits any stream name.
 */
export function uniquenessKey(identity: string, branch: string, subPath: string): string {
  return createHash('sha256').update(`${identity}\u0000${branch}\u0000${subPath}`).digest('hex');
}
