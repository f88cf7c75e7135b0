import { Response } from 'express';

/**
 * The headers that carry a detached platform-key signature (docs/exports.md): exports and the
 * audit chain head answer them alike, so one `openssl dgst -sha256 -verify` command checks both.
 */
export function setSignatureHeaders(res: Response, signed: { sha256: string; signature: Buffer; fingerprint: string }): void {
  res.setHeader('Vigil-Document-SHA256', signed.sha256);
  res.setHeader('Vigil-Signature', signed.signature.toString('base64'));
  res.setHeader('Vigil-Signature-Algorithm', 'ECDSA-P256-SHA256');
  res.setHeader('Vigil-Key-Fingerprint', `sha256:${signed.fingerprint}`);
}
