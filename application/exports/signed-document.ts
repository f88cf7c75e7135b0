import { createHash } from 'node:crypto';
import { dsseEnvelope, exportStatement, IN_TOTO_PAYLOAD_TYPE, preAuthenticationEncoding } from '../../domain/exports/in-toto';
import type { PlatformKey } from '../ports/signing';
import type { ExportDocument } from './export-service';

/** A document's bytes as pieces, its SHA-256 and the platform key's detached signature over exactly those bytes. */
export interface SignedDocument {
  document: ExportDocument;
  chunks: Buffer[];
  size: number;
  sha256: string;
  /** DER ECDSA-SHA256, as `openssl dgst -sha256 -verify pub.pem -signature sig.der doc` checks it. */
  signature: Buffer;
  fingerprint: string;
}

/**
 * Writes the document once: each piece becomes bytes that are hashed and signed as they come, and kept
 * as a list of pieces (no single string of the whole document), so the signature can precede the
 * bytes in the answer's headers.
 */
export function signDocument(document: ExportDocument, key: PlatformKey): SignedDocument {
  const signer = key.signer();
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = () => {
    if (!pending.length) return;
    const bytes = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingLength = 0;
    signer.update(bytes);
    hash.update(bytes);
    chunks.push(bytes);
    size += bytes.length;
  };
  for (const piece of document.pieces) {
    pending.push(piece);
    pendingLength += piece.length;
    if (pendingLength >= 64 * 1024) flush();
  }
  flush();
  return { document, chunks, size, sha256: hash.digest('hex'), signature: signer.sign(), fingerprint: key.fingerprint };
}

/** The in-toto Statement v1 about a signed document, in a DSSE envelope signed by the platform key. */
export function attestation(signed: SignedDocument, key: PlatformKey, exporter: { name: string; version: string }): string {
  const { document } = signed;
  const payload = Buffer.from(exportStatement({ name: document.filename, sha256: signed.sha256 }, {
    exporter, format: document.format, mediaType: document.mediaType,
    scope: { kind: document.scope.kind, id: document.scope.id, name: document.scope.name }, asOf: document.timestamp,
    signingKey: { fingerprint: key.fingerprint },
  }), 'utf8');
  const signer = key.signer();
  signer.update(preAuthenticationEncoding(IN_TOTO_PAYLOAD_TYPE, payload));
  return dsseEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, signer.sign(), `sha256:${key.fingerprint}`);
}
