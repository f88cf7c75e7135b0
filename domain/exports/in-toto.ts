/**
 * in-toto Statement v1 in a DSSE envelope (fixtures/schemas/in-toto/statement-v1.md, dsse/envelope.md):
 * the statement names the export by its SHA-256; the envelope signs the statement's bytes through
 * DSSE's pre-authentication encoding, never the bytes alone.
 */
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const EXPORT_PREDICATE_TYPE = 'https://vigil.example/export-provenance/v1';

export interface ExportPredicate {
  exporter: { name: string; version: string };
  format: string;
  mediaType: string;
  scope: { kind: string; id: number; name: string };
  asOf: string;
  signingKey: { fingerprint: string };
}

export function exportStatement(subject: { name: string; sha256: string }, predicate: ExportPredicate): string {
  return JSON.stringify({
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: [{ name: subject.name, digest: { sha256: subject.sha256 } }],
    predicateType: EXPORT_PREDICATE_TYPE,
    predicate,
  });
}

/** DSSE v1 PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in bytes. */
export function preAuthenticationEncoding(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

export function dsseEnvelope(payloadType: string, payload: Buffer, signature: Buffer, keyid: string): string {
  return JSON.stringify({ payload: payload.toString('base64'), payloadType, signatures: [{ keyid, sig: signature.toString('base64') }] });
}
