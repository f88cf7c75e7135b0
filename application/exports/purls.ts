import { PackageURL } from 'packageurl-js';

/**
 * Package URLs in one spelling (packageurl-js: type and namespace rules, qualifiers sorted, encoding),
 * so that a component exported here and a statement read from a supplier meet on the same text.
 * Null when the text is not a package URL.
 */
export function normalisePurl(text: string | null | undefined): string | null {
  if (!text || !text.startsWith('pkg:')) return null;
  // A backlog names the same components again and again (one per vulnerability): parse each once.
  const known = cache.get(text);
  if (known !== undefined) return known;
  let normal: string | null;
  try { normal = PackageURL.fromString(text).toString(); } catch { normal = null; }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(text, normal);
  return normal;
}

const CACHE_SIZE = 50_000;
const cache = new Map<string, string | null>();

/** A package URL for a package named without one (a generic package, name and version). */
export function genericPurl(name: string, version: string | null): string | null {
  try { return new PackageURL('generic', undefined, name, version ?? undefined, undefined, undefined).toString(); } catch { return null; }
}

/** The component an issue speaks of: its path when that is a package URL, else its package name and version. */
export function issuePurl(issue: { path: string; packageName: string | null; packageVersion: string | null }): string | null {
  return normalisePurl(issue.path) ?? (issue.packageName ? genericPurl(issue.packageName, issue.packageVersion) : null);
}
