import { Type } from '@sinclair/typebox';
import { refuse } from '../../../domain/shared/decider';
import { Response } from 'express';
import { EXPORT_FORMATS, ExportFormat } from '../../../application/exports/export-service';
import { attestation, signDocument, SignedDocument } from '../../../application/exports/signed-document';
import type { ScopeKind } from '../../../domain/exports/model';
import { projectExported } from '../../../domain/exports/events';
import { PROJECT_EXPORT_JSON_SCHEMA, PROJECT_EXPORT_MAJOR } from '../../../domain/exports/project-export';
import { streams } from '../../../domain/shared/streams';
import { AsOfSchema, parseAsOf } from '../as-of';
import { RouteDef, VigilRequest } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';

const SCOPES: Array<{ kind: ScopeKind; plural: string }> = [
  { kind: 'repository', plural: 'repositories' }, { kind: 'container', plural: 'containers' },
  { kind: 'project', plural: 'projects' }, { kind: 'solution', plural: 'solutions' },
];

/** Sends a signed document byte for byte: the signature, digest and key in headers, then the pieces as written. */
export async function sendSigned(res: Response, signed: SignedDocument): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', signed.document.mediaType);
  res.setHeader('Content-Length', String(signed.size));
  res.setHeader('Content-Disposition', `attachment; filename="${signed.document.filename}"`);
  res.setHeader('Vigil-As-Of', signed.document.timestamp);
  res.setHeader('Vigil-Document-SHA256', signed.sha256);
  res.setHeader('Vigil-Signature', signed.signature.toString('base64'));
  res.setHeader('Vigil-Signature-Algorithm', 'ECDSA-P256-SHA256');
  res.setHeader('Vigil-Key-Fingerprint', `sha256:${signed.fingerprint}`);
  for (const chunk of signed.chunks) {
    if (!res.write(chunk)) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
    if (res.destroyed) return;
  }
  res.end();
}

/** Exports and the platform key (spec 1 §1.9, issue #11; docs/exports.md). */
export function exportRoutes(s: Services): RouteDef[] {
  // One literal route per scope and format (no {format} parameter): each has its own line in the OpenAPI document.
  const exportRoute = (kind: ScopeKind, plural: string, format: ExportFormat): RouteDef => ({
    method: 'get', path: `/${plural}/{id}/exports/${format}`, tag: 'Exports', auth: { scope: 'read' },
    summary: `Signed ${format} of a ${kind}: the document byte for byte with its detached ECDSA-SHA256 signature in Vigil-Signature; envelope=dsse answers an in-toto statement about it in a DSSE envelope; as_of answers from the event log up to that instant`,
    params: Type.Object({ id: RowId() }),
    query: Type.Object({ as_of: AsOfSchema, envelope: Type.Optional(Type.Literal('dsse')) }),
    responses: { 200: { description: 'The document (or its DSSE envelope)' }, 404: { description: 'Unknown or not visible' }, 409: { description: 'Nothing can be signed (no ENCRYPTION_KEY), or nothing to state' } },
    handler: async (req: VigilRequest, res: Response) => {
      const asOf = parseAsOf(req.query.as_of);
      const key = await s.platformKeys.current();
      const document = await s.exports.document(req.principal!, kind, Number(req.params.id), format, asOf);
      const signed = signDocument(document, key);
      if (req.query.envelope === 'dsse') {
        res.status(200).type('application/vnd.dsse.envelope.v1+json').setHeader('Vigil-As-Of', document.timestamp);
        res.send(attestation(signed, key, { name: s.config.brandName, version: s.config.version }));
        return;
      }
      await sendSigned(res, signed);
    },
  });
  const formatsOf = (kind: ScopeKind) => (Object.keys(EXPORT_FORMATS) as ExportFormat[]).filter((f) => (EXPORT_FORMATS[f].scopes as readonly ScopeKind[]).includes(kind));
  return [
    {
      method: 'get', path: '/crypto/public-key.pub', tag: 'Exports', auth: 'public',
      summary: 'The public half of the platform signing key (ECDSA P-256, SubjectPublicKeyInfo PEM): verify exports with it; no credential needed',
      responses: { 200: { description: 'PEM' }, 409: { description: 'No key can be used: ENCRYPTION_KEY unset, or the stored key cannot be opened' } },
      handler: async (_req, res: Response) => {
        const key = await s.platformKeys.current();
        res.setHeader('Vigil-Key-Fingerprint', `sha256:${key.fingerprint}`);
        res.status(200).type('application/x-pem-file').send(key.publicKeyPem);
      },
    },
    {
      method: 'get', path: '/projects/{id}/export', tag: 'Exports', auth: { scope: 'read' },
      summary: 'Signed project export vigil-project-export 1.1 (spec 2 §2.6, §9) for somebody who sees the whole project; each download is audited (ProjectExported, SIEM VGL-SEC-032); as_of and envelope=dsse as for the other exports',
      params: Type.Object({ id: RowId() }),
      query: Type.Object({ as_of: AsOfSchema, envelope: Type.Optional(Type.Literal('dsse')) }),
      responses: { 200: { description: 'The export (or its DSSE envelope)' }, 404: { description: 'Unknown, or not seen whole' }, 409: { description: 'Nothing can be signed (no ENCRYPTION_KEY)' } },
      handler: async (req: VigilRequest, res: Response) => {
        const asOf = parseAsOf(req.query.as_of);
        const key = await s.platformKeys.current();
        const id = Number(req.params.id);
        const document = await s.exports.projectExport(req.principal!, id, asOf);
        const signed = signDocument(document, key);
        // Audited before a byte leaves: a download is never unrecorded (S2.6-64, S2.6-81).
        await s.commands.appendAll([{
          stream: streams.projectExports(id), expectedRevision: 'any',
          events: [projectExported({
            projectId: id, sha256: signed.sha256, size: signed.size, schema: document.schema, version: document.version, asOf: document.timestamp,
            targets: document.targets.map((t) => ({ kind: t.kind, id: t.id })), account: req.principal!.accountId,
          })],
        }], req.ctx!);
        if (req.query.envelope === 'dsse') {
          res.status(200).type('application/vnd.dsse.envelope.v1+json').setHeader('Vigil-As-Of', document.timestamp);
          res.send(attestation(signed, key, { name: s.config.brandName, version: s.config.version }));
          return;
        }
        await sendSigned(res, signed);
      },
    },
    {
      method: 'get', path: '/schemas/project-export/{major}', tag: 'Exports', auth: { scope: 'read' },
      summary: 'The JSON schema of a project-export major this installation produces (1); another major answers 404',
      params: Type.Object({ major: Type.Integer({ minimum: 0, maximum: 1000 }) }),
      responses: { 200: { description: 'JSON Schema (2020-12)' }, 404: { description: 'A major this installation does not produce' } },
      handler: async (req, res: Response) => {
        if (Number(req.params.major) !== PROJECT_EXPORT_MAJOR) throw refuse.notFound(`This installation produces vigil-project-export major ${PROJECT_EXPORT_MAJOR} only.`);
        res.status(200).type('application/schema+json').send(JSON.stringify(PROJECT_EXPORT_JSON_SCHEMA));
      },
    },
    ...SCOPES.flatMap(({ kind, plural }) => formatsOf(kind).map((format) => exportRoute(kind, plural, format))),
  ];
}
