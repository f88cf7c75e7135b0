/**
 * The licence policy applied to a scan's SBOM (spec 1 §1.3 "licence policy", §2.9: 4 risk points
 * per disallowed licence).
 *
 * Default deny-list, until an installation setting makes it configurable:
 * - `AGPL-1.0*`, `AGPL-3.0*` (Affero GPL, every -only / -or-later form): network use triggers
 *   source disclosure of the whole service;
 * - `SSPL-1.0` (Server Side Public License): offering the software as a service requires releasing
 *   the source of the whole service stack.
 * A trailing `*` matches any suffix; ids compare without regard to case. A few spelled-out names
 * ("GNU Affero General Public License v3", "Server Side Public License") are folded to their ids.
 *
 * How a component's licences are read:
 * - an SPDX expression is evaluated: `A OR B` is disallowed only when every alternative is (the
 *   user may pick the allowed one), `A AND B` when either is, `A WITH exception` as A;
 * - a list of licences (CycloneDX `licenses[]`, Syft's own list) is taken entry by entry: each
 *   disallowed entry is reported.
 */
export const DEFAULT_DISALLOWED_LICENCES: readonly string[] = ['AGPL-1.0*', 'AGPL-3.0*', 'SSPL-1.0'];

const SPELLED_OUT: ReadonlyArray<[RegExp, string]> = [
  [/affero/i, 'AGPL-3.0'],
  [/server[\s-]*side[\s-]*public[\s-]*licen[cs]e/i, 'SSPL-1.0'],
];

export class LicencePolicy {
  private readonly exact = new Set<string>();
  private readonly prefixes: string[] = [];

  constructor(patterns: readonly string[] = DEFAULT_DISALLOWED_LICENCES) {
    for (const raw of patterns) {
      const pattern = raw.trim().toLowerCase();
      if (!pattern) continue;
      if (pattern.endsWith('*')) this.prefixes.push(pattern.slice(0, -1));
      else this.exact.add(pattern);
    }
  }

  /** One licence id or name. */
  deniesId(id: string): boolean {
    const text = id.trim();
    const folded = SPELLED_OUT.find(([re]) => re.test(text))?.[1] ?? text;
    const lower = folded.toLowerCase();
    return this.exact.has(lower) || this.prefixes.some((p) => lower.startsWith(p));
  }

  /** An SPDX licence expression (a bare id is an expression too). Unreadable text: read as one name. */
  deniesExpression(expression: string): boolean {
    const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
    if (tokens.length <= 1) return tokens.length === 1 && this.deniesId(tokens[0]);
    try {
      const parser = new ExpressionParser(tokens, this);
      const denied = parser.expression();
      if (!parser.done()) return this.deniesId(expression);
      return denied;
    } catch {
      return this.deniesId(expression);
    }
  }
}

/** expression := term (OR term)*; term := factor (AND factor)*; factor := ( expression ) | id [WITH id]. */
class ExpressionParser {
  private at = 0;

  constructor(private readonly tokens: string[], private readonly policy: LicencePolicy) {}

  done(): boolean {
    return this.at === this.tokens.length;
  }

  expression(): boolean {
    let denied = this.term();
    while (this.peek('OR')) {
      this.at++;
      denied = this.term() && denied;
    }
    return denied;
  }

  private term(): boolean {
    let denied = this.factor();
    while (this.peek('AND')) {
      this.at++;
      denied = this.factor() || denied;
    }
    return denied;
  }

  private factor(): boolean {
    const token = this.tokens[this.at++];
    if (token === undefined || token === ')') throw new Error('unexpected end');
    if (token === '(') {
      const denied = this.expression();
      if (this.tokens[this.at++] !== ')') throw new Error('unbalanced');
      return denied;
    }
    if (this.peek('WITH')) this.at += 2;
    return this.policy.deniesId(token);
  }

  private peek(word: string): boolean {
    return (this.tokens[this.at] ?? '').toUpperCase() === word;
  }
}
