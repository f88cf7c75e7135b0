import fc from 'fast-check';
import { Operation } from './operations';

/** A declared route and a spelling of its path that is not the declared one. */
export interface PathVariant {
  op: Operation;
  declared: string;
  variant: string;
  changes: string[];
  toString(): string;
}

type Change = (segments: string[], literal: boolean[]) => { segments: string[]; literal: boolean[]; change: string } | null;

const pick = <T>(xs: T[], n: number): T => xs[n % xs.length];

/** Changes that keep a path meaning the same thing to a lenient router. */
function change(kind: number, n: number): Change {
  return (segments, literal) => {
    const literals = segments.map((_, i) => i).filter((i) => literal[i] && /[a-z]/i.test(segments[i]));
    const s = [...segments];
    const l = [...literal];
    switch (kind) {
      case 0: { // case of one letter of a literal segment
        if (!literals.length) return null;
        const i = pick(literals, n);
        const letters = [...s[i]].map((c, j) => (/[a-z]/i.test(c) ? j : -1)).filter((j) => j >= 0);
        const j = pick(letters, n >> 3);
        const c = s[i][j];
        s[i] = s[i].slice(0, j) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + s[i].slice(j + 1);
        return { segments: s, literal: l, change: `case of "${segments[i]}"` };
      }
      case 1: { // the whole of a literal segment in upper case
        if (!literals.length) return null;
        const i = pick(literals, n);
        s[i] = s[i].toUpperCase();
        return { segments: s, literal: l, change: `"${segments[i]}" upper case` };
      }
      case 2: { // one character of a literal segment percent-encoded
        if (!literals.length) return null;
        const i = pick(literals, n);
        const j = (n >> 3) % s[i].length;
        const hex = s[i].charCodeAt(j).toString(16);
        s[i] = `${s[i].slice(0, j)}%${n & 1 ? hex.toUpperCase() : hex.toLowerCase()}${s[i].slice(j + 1)}`;
        return { segments: s, literal: l, change: `a letter of "${segments[i]}" percent-encoded` };
      }
      case 3: { // an empty segment (a doubled slash)
        const i = 1 + (n % (s.length - 1));
        s.splice(i, 0, '');
        l.splice(i, 0, false);
        return { segments: s, literal: l, change: 'a doubled slash' };
      }
      case 4: // a trailing slash
        return { segments: [...s, ''], literal: [...l, false], change: 'a trailing slash' };
      case 5: { // a dot segment, or a segment and its "..", where the router may resolve them
        const i = 1 + (n % (s.length - 1));
        if (n & 1) { s.splice(i, 0, '.'); l.splice(i, 0, false); } else { s.splice(i, 0, 'x', '..'); l.splice(i, 0, false, false); }
        return { segments: s, literal: l, change: n & 1 ? 'a "." segment' : 'an "x/.." pair' };
      }
      case 6: { // two segments joined by an encoded slash
        if (s.length < 3) return null;
        const i = 1 + (n % (s.length - 2));
        s.splice(i, 2, `${s[i]}${n & 1 ? '%2F' : '%2f'}${s[i + 1]}`);
        l.splice(i, 2, false);
        return { segments: s, literal: l, change: 'an encoded slash' };
      }
      default: { // a parameter on a segment, which some routers strip
        if (!literals.length) return null;
        const i = pick(literals, n);
        s[i] = `${s[i]};x=1`;
        return { segments: s, literal: l, change: `";x=1" after "${segments[i]}"` };
      }
    }
  };
}

/**
 * Spellings of declared routes (with `fill` for their parameters) that differ from the declared
 * path: case, percent-encoding, slashes, dot segments. Exact routing answers all of them 404.
 */
export function pathVariants(ops: Operation[], base: string, fill: (op: Operation) => string): fc.Arbitrary<PathVariant> {
  return fc.tuple(fc.nat({ max: ops.length - 1 }), fc.array(fc.tuple(fc.nat({ max: 7 }), fc.nat()), { minLength: 1, maxLength: 3 })).map(([o, kinds]) => {
    const op = ops[o];
    const declared = `${base}${fill(op)}`;
    const template = `${base}${op.path}`.split('/');
    let segments = declared.split('/');
    let literal = template.map((t) => t !== '' && !t.includes('{'));
    const changes: string[] = [];
    for (const [kind, n] of kinds) {
      const next = change(kind, n)(segments, literal);
      if (!next) continue;
      ({ segments, literal } = next);
      changes.push(next.change);
    }
    const variant = segments.join('/');
    const describe = () => `${op.method.toUpperCase()} ${variant} (declared ${declared}; ${changes.join(', ')})`;
    return { op, declared, variant, changes, toString: describe, [fc.toStringMethod]: describe };
  }).filter((v) => v.variant !== v.declared);
}
