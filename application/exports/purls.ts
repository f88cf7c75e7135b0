import { PackageURL } from 'packageurl-js';

/**
 * Package URLs in one spelling (packageurl-js: type and namespace rules, qualifiers sorted, encoding),
 * so that a component exported here and a statement read from a supplier meet on the same text.
 * Null when the text is not a package URL.
 */
export function normalisePurl(text: string | null | undefined): string | null {
  if (!text || !text.startsWith('pkg:')) return null;
  try { return PackageURL.fromString(text).toString(); } catch { return null; }
}

/** A package URL for a package named without one (a generic package, name and version). */
export function genericPurl(name: string, version: string | null): string | null {
  try { return new PackageURL('generic', undefined, name, version ?? undefined, undefined, undefined).toString(); } catch { return null; }
}

/** The component an issue speaks of: its path when that is a package URL, else its package name and version. */
export function issuePurl(issue: { path: string; packageName: string | null; packageVersion: string | null }): string | null {
  return normalisePurl(issue.path) ?? (issue.packageName ? genericPurl(issue.packageName, issue.packageVersion) : null);
}
