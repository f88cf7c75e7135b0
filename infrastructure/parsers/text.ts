import { refuse } from './import-refusal';
import { TextDecoder } from 'node:util';

/**
 * Byte-to-text decoding shared by the parsers. Decoding is strict (fatal): a report with bytes
 * that are not valid in its encoding is refused rather than stored with replacement characters,
 * because identities (paths, rule ids, suite names) built from mangled text would never match
 * the next upload's.
 */

function decodeWith(label: string, bytes: Uint8Array, what: string): string {
  let decoder: TextDecoder;
  try {
    // ignoreBOM false (the default) strips a leading byte-order mark.
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    refuse(`The ${what} declares the character encoding "${label}", which cannot be read.`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    refuse(`The ${what} is not valid ${label.toUpperCase()} text.`);
  }
}

/** Encoding announced by a byte-order mark, if any. */
function bomEncoding(b: Uint8Array): string | null {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return null;
}

/** JSON and line-based text (SARIF, CycloneDX, lcov): UTF-8, or UTF-16 when a byte-order mark says so. */
export function decodeUnicodeText(body: Buffer | string, what: string): string {
  if (typeof body === 'string') return body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  return decodeWith(bomEncoding(body) ?? 'utf-8', body, what);
}

/**
 * XML text: a byte-order mark wins, then the encoding named in the XML declaration (older tools
 * still write ISO-8859-1 or windows-1252), else UTF-8 as XML prescribes.
 */
export function decodeXmlText(body: Buffer | string, what: string): string {
  if (typeof body === 'string') return body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  const bom = bomEncoding(body);
  if (bom) return decodeWith(bom, body, what);
  const head = body.subarray(0, 256).toString('latin1');
  const declared = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1];
  return decodeWith(declared ? declared.toLowerCase() : 'utf-8', body, what);
}
