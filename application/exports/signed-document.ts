import { createHash } from 'node:crypto';
import { dsseEnvelope, exportStatement, IN_TOTO_PAYLOAD_TYPE, preAuthenticationEncoding } from '../../domain/exports/in-toto';
import type { PlatformKey } from '../ports/signing';
import type { ExportDocument } from './export-service';
import type { ByteSpool } from './ports';

/** A document's bytes (spooled), its SHA-256 and the platform key's detached signature over exactly those bytes. */
export interface SignedDocument {
  document: ExportDocument;
  /** The bytes, in memory or in a temporary file: whoever signs disposes of it (ByteSpool.dispose). */
  spool: ByteSpool;
  size: number;
  sha256: string;
  /** DER ECDSA-SHA256, as `openssl dgst -sha256 -verify pub.pem -signature sig.der doc` checks it. */
  signature: Buffer;
  fingerprint: string;
}

/**
 * Writes the document once: its pieces become 64 KB blocks of bytes that are hashed and signed as they
 * come and written to the spool (memory while small, a temporary file beyond, ADR 0016), so that the
 * signature can precede the bytes in the answer's headers while memory stays bounded. The spool is
 * disposed of here when writing fails; otherwise by the caller.
 */
export async function signDocument(document: ExportDocument, key: PlatformKey, spool: ByteSpool): Promise<SignedDocument> {
  const signer = key.signer();
  const hash = createHash('sha256');
  let size = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    if (!pending.length) return;
    const bytes = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingLength = 0;
    signer.update(bytes);
    hash.update(bytes);
    size += bytes.length;
    await spool.write(bytes);
  };
  try {
    for (const piece of document.pieces) {
      pending.push(piece);
      pendingLength += piece.length;
      if (pendingLength >= 64 * 1024) await flush();
    }
    await flush();
    await spool.end();
  } catch (error) {
    await spool.dispose();
    throw error;
  }
  return { document, spool, size, sha256: hash.digest('hex'), signature: signer.sign(), fingerprint: key.fingerprint };
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
