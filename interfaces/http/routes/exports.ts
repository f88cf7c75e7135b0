import { Type } from '@sinclair/typebox';
import { refuse } from '../../../domain/shared/decider';
import { Response } from 'express';
import { setSignatureHeaders } from '../signature-headers';
import { EXPORT_FORMATS, ExportFormat } from '../../../application/exports/export-service';
import { attestation, signDocument, SignedDocument } from '../../../application/exports/signed-document';
import type { PlatformKey } from '../../../application/ports/signing';
import type { ScopeKind } from '../../../domain/exports/model';
import { projectExported } from '../../../domain/exports/events';
import { PROJECT_EXPORT_JSON_SCHEMA, PROJECT_EXPORT_MAJOR } from '../../../domain/exports/project-export';
import { streams } from '../../../domain/shared/streams';
import { AsOfSchema, parseAsOf } from '../as-of';
import { RouteDef, takeBody, VigilRequest } from '../route';
import { WRITING_ROLES } from '../../../domain/identity/roles';
import { RowId } from '../row-id';
import { Services } from '../services';

const SCOPES: Array<{ kind: ScopeKind; plural: string }> = [
  { kind: 'repository', plural: 'repositories' }, { kind: 'container', plural: 'containers' },
  { kind: 'project', plural: 'projects' }, { kind: 'solution', plural: 'solutions' },
];

/** Sends a signed document byte for byte: the signature, digest and key in headers, then the spooled bytes with backpressure. */
export async function sendSigned(res: Response, signed: SignedDocument): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', signed.document.mediaType);
  res.setHeader('Content-Length', String(signed.size));
  res.setHeader('Content-Disposition', `attachment; filename="${signed.document.filename}"`);
  res.setHeader('Vigil-As-Of', signed.document.timestamp);
  setSignatureHeaders(res, signed);
  for await (const chunk of signed.spool.read()) {
    if (!res.write(chunk)) {
      // Wait for the client to take the previous pieces (or to leave); neither listener outlives the wait.
      await new Promise<void>((resolve) => {
        const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
        res.on('drain', done);
        res.on('close', done);
      });
    }
    if (res.destroyed) return;
  }
  res.end();
}

/**
 * Answers a signed document as asked: its DSSE envelope (`envelope=dsse`) or the bytes themselves,
 * and frees its spool whatever happens. `before` runs first, inside the same guard (an audit record
 * that must exist before a byte leaves).
 */
async function answerSigned(req: VigilRequest, res: Response, s: Services, signed: SignedDocument, key: PlatformKey, before?: () => Promise<void>): Promise<void> {
  try {
    if (before) await before();
    if (req.query.envelope === 'dsse') {
      res.status(200).type('application/vnd.dsse.envelope.v1+json').setHeader('Vigil-As-Of', signed.document.timestamp);
      res.send(attestation(signed, key, { name: s.config.brandName, version: s.config.version }));
      return;
    }
    await sendSigned(res, signed);
  } finally {
    await signed.spool.dispose();
  }
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
      await answerSigned(req, res, s, await signDocument(document, key, s.exportSpools.create()), key);
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
        const signed = await signDocument(document, key, s.exportSpools.create());
        // Audited before a byte leaves: a download is never unrecorded (S2.6-64, S2.6-81).
        await answerSigned(req, res, s, signed, key, () => s.commands.appendAll([{
          stream: streams.projectExports(id), expectedRevision: 'any',
          events: [projectExported({
            projectId: id, sha256: signed.sha256, size: signed.size, schema: document.schema, version: document.version, asOf: document.timestamp,
            targets: document.targets.map((t) => ({ kind: t.kind, id: t.id })), account: req.principal!.accountId,
          })],
        }], req.ctx!).then(() => undefined));
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
    {
      method: 'post', path: '/projects/{id}/evidence-bundles', tag: 'Exports', auth: { scope: 'read' },
      summary: "Generate an evidence bundle for a project's auditors: one zip of its VEX documents, its targets' SBOMs, the project export, the audit-log entries of its targets with the chain head, each with its signature, and a signed manifest of SHA-256 digests; kept evidence_retention_days. as_of answers for that instant (documents, audit extract and chain head as they stood then): the same as_of gives the same zip, byte for byte",
      params: Type.Object({ id: RowId() }),
      query: Type.Object({ as_of: AsOfSchema }),
      responses: { 201: { description: '{id, projectId, createdAt, asOf, expiresAt, sha256, size, available}' }, 400: { description: 'as_of malformed or still to come' }, 404: { description: 'Unknown, not seen whole, or not created by as_of' }, 409: { description: 'Nothing can be signed (no ENCRYPTION_KEY)' } },
      handler: async (req: VigilRequest, res: Response) => {
        const asOf = parseAsOf(req.query.as_of);
        const key = await s.platformKeys.current();
        const { exportSha256: _sha, exportTargets: _targets, ...bundle } = await s.evidence.generate(req.principal!, req.ctx!, Number(req.params.id), key, { name: s.config.brandName, version: s.config.version }, asOf);
        res.status(201);
        return bundle;
      },
    },
    {
      method: 'get', path: '/projects/{id}/evidence-bundles', tag: 'Exports', auth: { scope: 'read' },
      summary: "A project's evidence bundles, newest first; an expired one keeps its digest (available false)",
      params: Type.Object({ id: RowId() }),
      responses: { 200: { description: 'Bundles' }, 404: { description: 'Unknown, or not seen whole' } },
      handler: async (req: VigilRequest) => s.evidence.list(req.principal!, Number(req.params.id), req.ctx!.now),
    },
    {
      method: 'get', path: '/projects/{id}/evidence-bundles/{bundleId}', tag: 'Exports', auth: { scope: 'read' },
      summary: 'Download an evidence bundle (application/zip; Vigil-Document-SHA256); audited as the project export leaving the platform (VGL-SEC-032); 410 once evidence_retention_days has passed',
      params: Type.Object({ id: RowId(), bundleId: RowId() }),
      responses: { 200: { description: 'The zip' }, 404: { description: 'Unknown, or not seen whole' }, 410: { description: 'Expired: only the digest is kept' } },
      handler: async (req: VigilRequest, res: Response) => {
        const { record, content } = await s.evidence.download(req.principal!, req.ctx!, Number(req.params.id), Number(req.params.bundleId));
        res.status(200).type('application/zip');
        res.setHeader('Content-Disposition', `attachment; filename="project-${record.projectId}-evidence-${record.id}.zip"`);
        res.setHeader('Vigil-Document-SHA256', record.sha256);
        res.send(content);
      },
    },
    {
      method: 'post', path: '/vex/ingest', tag: 'Exports', bodyLimit: 'vexIngest',
      auth: { sessionOnly: true, roles: WRITING_ROLES, rolesDetail: 'A VEX document is applied as your own triage decisions: an account that writes (administrator, CISO, security lead, writer).' },
      summary: "A supplier's CycloneDX VEX, OpenVEX or CSAF document: statements matched to the open issues you see by vulnerability id and package URL, applied as your triage decisions (four-eyes, If-Match semantics); dry_run=true reports what would change; the answer lists each statement's outcome",
      rawBody: ['application/json', 'application/vnd.cyclonedx+json', 'application/csaf+json', 'application/openvex+json'],
      query: Type.Object({
        dry_run: Type.Optional(Type.Boolean()),
        repository_id: Type.Optional(RowId({ description: 'Match only the issues of this repository' })),
        container_id: Type.Optional(RowId({ description: 'Match only the issues of this container image' })),
        expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Review date of will_not_fix decisions (default 90)' })),
      }),
      responses: { 200: { description: '{format, dryRun, statements, counts, results: [{vulnerability, purl, issueId, from, to, outcome, detail}]}' }, 400: { description: 'Not a VEX document' }, 403: { description: 'Not an account that writes, or a key' }, 413: { description: 'Over VIGIL_MAX_BODY_VEX_INGEST (16 MB)' } },
      handler: async (req: VigilRequest) => {
        const q = req.query as Record<string, unknown>;
        if (q.repository_id !== undefined && q.container_id !== undefined) throw refuse.invalid('Name repository_id or container_id, not both.');
        const target = q.repository_id !== undefined ? { kind: 'repository' as const, id: Number(q.repository_id) } : q.container_id !== undefined ? { kind: 'container' as const, id: Number(q.container_id) } : null;
        return s.vexIngest.ingest(req.principal!, req.ctx!, takeBody(req), { target,
          dryRun: q.dry_run === true || q.dry_run === 'true', expiresInDays: q.expires_in_days === undefined ? 90 : Number(q.expires_in_days),
        });
      },
    },
    ...SCOPES.flatMap(({ kind, plural }) => formatsOf(kind).map((format) => exportRoute(kind, plural, format))),
  ];
}
