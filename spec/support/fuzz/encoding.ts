/**
 * Bytes of a JavaScript string as WTF-8: like UTF-8, but a lone surrogate becomes its own
 * three bytes (ED A0 80 for U+D800) instead of U+FFFD, so a hostile text reaches the server
 * as hostile as it was generated.
 */
export function wtf8(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes everything but RFC 3986's unreserved characters (no URIError on lone surrogates). */
export function percentEncode(s: string): string {
  let out = '';
  for (const b of wtf8(s)) {
    const ch = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Only characters node:http puts in a header value as they are (tab, printable ASCII, Latin-1). */
export function headerSafe(s: string): string {
  return s.replace(/[^\t\x20-\x7e\x80-\xff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A long text shown short, escaped so that control characters are visible. */
export function abbreviate(s: string, max = 240): string {
  const shown = JSON.stringify(s);
  if (shown.length <= max) return shown;
  return `${shown.slice(0, max - 80)}…[${s.length} chars in all]…${shown.slice(-60)}`;
}
