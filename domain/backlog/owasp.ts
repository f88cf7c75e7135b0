/**
 * OWASP Top 10 categories of an issue (issue #16, ADR 0021), as SAST rules name them.
 *
 * Normal form: `A` + the rank on two digits + `:` + the edition's year, e.g. `A03:2021`, `A01:2017`
 * (Semgrep writes both `A1:2017` and `A01:2017` for the same category; the two-digit rank is the form
 * OWASP itself uses since 2021, and sorts as text). That is what issues carry, what the read model
 * stores and what GET /issues answers; the filter `owasp_category` takes either width, in any case.
 *
 * Where the categories come from:
 * - SARIF (imports, and scanners writing SARIF): the tags of the result's rule and of the result,
 *   `properties.tags`, of the form `OWASP-A03:2021-Injection` or `OWASP-A03:2021 - Injection`.
 * - Semgrep JSON (the built-in SAST step): `extra.metadata.owasp`, one string or a list, such as
 *   `A01:2021 - Broken Access Control`; older rules write no year (`A3: Sensitive Data Exposure`),
 *   and the year is then the edition whose category of that rank bears that name (2017 or 2021);
 *   a code whose edition cannot be told is not recorded.
 */

/** The longest normal form, `A10:2021`: the width of issue_owasp_categories.category. */
export const OWASP_CATEGORY_MAX = 8;

/** At most this many categories are kept per issue (a rule names one or two per edition). */
export const OWASP_CATEGORIES_PER_ISSUE = 20;

/** A code as a caller may write it: A1..A10 (one or two digits), colon, a year of this century. */
const CODE = /^A(0?[1-9]|10):(20[0-9]{2})$/i;

const normal = (rank: string, year: string) => `A${rank.padStart(2, '0')}:${year}`;

/** The normal form of a code (`a3:2017` → `A03:2017`), or null when it is no category code. */
export function owaspCategory(text: string): string | null {
  const m = CODE.exec(text);
  return m ? normal(m[1], m[2]) : null;
}

/** A SARIF tag naming a category: OWASP, a dash or space, the code, then anything (its name). */
const TAG = /^OWASP[-_ ]?A(0?[1-9]|10):(20[0-9]{2})(?![0-9])/i;

/** The categories SARIF tags name, in normal form, sorted, each once; other tags are ignored. */
export function owaspCategoriesOfTags(...tagLists: unknown[]): string[] {
  const found = new Set<string>();
  for (const tags of tagLists) {
    if (!Array.isArray(tags)) continue;
    for (const tag of tags) {
      if (typeof tag !== 'string') continue;
      const m = TAG.exec(tag.trim());
      if (m) found.add(normal(m[1], m[2]));
    }
  }
  return capped(found);
}

/** The category names of the editions Semgrep's older rules cite without a year, by rank. */
const EDITIONS: Readonly<Record<string, readonly string[]>> = {
  2017: [
    'Injection', 'Broken Authentication', 'Sensitive Data Exposure', 'XML External Entities', 'Broken Access Control',
    'Security Misconfiguration', 'Cross-Site Scripting', 'Insecure Deserialization', 'Using Components with Known Vulnerabilities',
    'Insufficient Logging & Monitoring',
  ],
  2021: [
    'Broken Access Control', 'Cryptographic Failures', 'Injection', 'Insecure Design', 'Security Misconfiguration',
    'Vulnerable and Outdated Components', 'Identification and Authentication Failures', 'Software and Data Integrity Failures',
    'Security Logging and Monitoring Failures', 'Server-Side Request Forgery',
  ],
};

const letters = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Semgrep's metadata value: `A01:2021 - Broken Access Control`, `OWASP-A03:2021`, or `A3: Sensitive Data Exposure`. */
const METADATA = /^(?:OWASP[-_ ]?)?A(0?[1-9]|10)(?::(20[0-9]{2}))?(?![0-9])\s*(?:[-:]\s*)?(.*)$/i;

/** The categories of a Semgrep JSON finding's `extra.metadata.owasp` (a string or a list of strings). */
export function owaspCategoriesOfSemgrep(value: unknown): string[] {
  const found = new Set<string>();
  for (const entry of Array.isArray(value) ? value : [value]) {
    if (typeof entry !== 'string') continue;
    const m = METADATA.exec(entry.trim());
    if (!m) continue;
    const [, rank, year, name] = m;
    if (year) {
      found.add(normal(rank, year));
      continue;
    }
    // No year: the edition whose category of that rank bears the name given, when exactly one does.
    const named = letters(name);
    const editions = named === '' ? [] : Object.keys(EDITIONS).filter((y) => named.startsWith(letters(EDITIONS[y][Number(rank) - 1])));
    if (editions.length === 1) found.add(normal(rank, editions[0]));
  }
  return capped(found);
}

function capped(found: Set<string>): string[] {
  return [...found].sort().slice(0, OWASP_CATEGORIES_PER_ISSUE);
}
