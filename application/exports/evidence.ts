import { createHash } from 'node:crypto';
import type { EvidenceBundleGenerated } from '../../domain/exports/events';
import { projectExported } from '../../domain/exports/events';
import { DomainError, refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import type { CommandHandler, RequestContext } from '../command-handler';
import type { Principal } from '../identity/principal';
import type { IdGenerator } from '../ports/ids';
import type { PlatformKey } from '../ports/signing';
import { EXPORT_FORMATS, VEX_FORMATS, type ExportDocument, type ExportService } from './export-service';
import type { AuditExtract, ByteSpools, EvidenceRecord, EvidenceStore, ExportReads, ZipWriter } from './ports';
import { signDocument } from './signed-document';

const DAY = 86_400_000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Evidence bundles for auditors (issue #11): one zip per project holding its VEX documents, each
 * target's SBOM, the project export, the audit-log entries of its targets and their issues with the
 * chain's head, and a manifest of every file's SHA-256; each document beside its detached signature,
 * the manifest signed too. Kept evidence_retention_days, then only its digest remains.
 */
export class EvidenceService {
  constructor(
    private readonly exports: ExportService,
    private readonly reads: ExportReads,
    private readonly audit: AuditExtract,
    private readonly store: EvidenceStore,
    private readonly zip: ZipWriter,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly retentionDays: () => Promise<number>,
    private readonly spools: ByteSpools,
  ) {}

  /**
   * A bundle answering for `asOf` (null: now). Every document is folded from the log up to the instant,
   * the audit extract holds the entries decided at or before it and the chain head is the entry that
   * was newest then; nothing in it depends on when it is generated (the manifest records the instant,
   * zip entries are dated by it, signatures are deterministic), so the same as_of gives the same zip.
   */
  async generate(principal: Principal, ctx: RequestContext, projectId: number, key: PlatformKey, brand: { name: string; version: string }, requested: Date | null = null) {
    const project = await this.reads.project(principal, projectId);
    if (!project.whole) throw refuse.notFound(`No project ${projectId} is visible to you.`);
    if (requested && requested.getTime() > ctx.now.getTime()) throw refuse.invalid(`as_of ${requested.toISOString()} is in the future; the log cannot answer for it yet.`);
    // Every document answers for the same instant: the bundle is one picture.
    const asOf = new Date((requested ?? ctx.now).getTime());
    const instant = asOf.toISOString();
    const files: Array<{ path: string; bytes: Buffer }> = [];
    const add = (path: string, bytes: Buffer) => files.push({ path, bytes });
    // Each document is signed through a spool and taken whole: the zip is made in memory (it is stored whole in evidence_bundles).
    const sign = async (document: ExportDocument) => {
      const signed = await signDocument(document, key, this.spools.create());
      try {
        return { ...signed, bytes: await signed.spool.bytes() };
      } finally {
        await signed.spool.dispose();
      }
    };
    const addSigned = (path: string, signed: { bytes: Buffer; signature: Buffer }) => { add(path, signed.bytes); add(`${path}.sig`, signed.signature); };
    const omitted: Array<{ path: string; reason: string }> = [];
    for (const format of VEX_FORMATS) {
      try {
        addSigned(`vex/project-${projectId}.${EXPORT_FORMATS[format].extension}`, await sign(await this.exports.document(principal, 'project', projectId, format, asOf)));
      } catch (error) {
        // OpenVEX cannot state nothing: a project without vulnerabilities has no OpenVEX document (the manifest says so).
        if (!(error instanceof Error && /at least one statement/.test(error.message))) throw error;
        omitted.push({ path: `vex/project-${projectId}.${EXPORT_FORMATS[format].extension}`, reason: error.message });
      }
    }
    const projectExport = await this.exports.projectExport(principal, projectId, asOf);
    const exportSigned = await sign(projectExport);
    addSigned('project-export.json', exportSigned);
    for (const target of projectExport.targets) {
      addSigned(`sbom/${target.kind}-${target.id}.cdx.json`, await sign(await this.exports.document(principal, target.kind, target.id, 'cyclonedx-sbom', asOf)));
    }
    const issueStreams = (await this.reads.issueKeys(projectExport.targets)).map((k) => streams.issue(k));
    // Not in time (a projection far behind, past the read-your-writes timeout): the extract is what the chain holds.
    await this.audit.settle();
    const entries = await this.audit.entries([streams.project(projectId), ...projectExport.targets.map((t) => streams.target(t.kind, t.id)), ...issueStreams], instant);
    add('audit/audit-log.jsonl', Buffer.from(entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : ''), 'utf8'));
    // The head as it stood at the instant: the newest entry decided at or before it, so the extract can be checked against it.
    const head = await this.audit.head(instant);
    add('audit/chain-head.json', Buffer.from(JSON.stringify({ asOf: instant, head, verification: 'GET /api/v1/audit-log/verification recomputes the chain from the event log' }), 'utf8'));
    add('public-key.pem', Buffer.from(key.publicKeyPem, 'utf8'));
    const manifest = Buffer.from(JSON.stringify({
      // The project's name as of the instant (the project export's scope), not today's.
      bundle: { project: { id: project.id, name: projectExport.scope.name }, asOf: instant, generator: brand, signingKey: { algorithm: 'ECDSA-P256-SHA256', fingerprint: key.fingerprint } },
      chainHead: head,
      omitted,
      files: files.map((f) => ({ path: f.path, sha256: sha256(f.bytes), size: f.bytes.length })),
    }, null, 1), 'utf8');
    const signer = key.signer();
    signer.update(manifest);
    add('manifest.json', manifest);
    add('manifest.json.sig', signer.sign());
    const content = await this.zip.zip(files, asOf);
    // Housekeeping only once the bundle could be made: a refused request changes nothing.
    await this.store.purgeExpired(ctx.now.toISOString());
    const id = await this.ids.next('evidence_bundle');
    // Kept from when it was generated, whatever instant it answers for.
    const expiresAt = new Date(ctx.now.getTime() + (await this.retentionDays()) * DAY).toISOString();
    const record: EvidenceRecord = { id, projectId, accountId: principal.accountId, createdAt: ctx.now.toISOString(), expiresAt, sha256: sha256(content), size: content.length, manifest: manifest.toString('utf8'), purgedAt: null };
    const generated: EvidenceBundleGenerated = {
      type: 'EvidenceBundleGenerated',
      data: { id, projectId, sha256: record.sha256, size: record.size, asOf: instant, expiresAt, files: files.length, account: principal.accountId },
    };
    await this.commands.appendAll([{ stream: streams.evidenceBundle(id), events: [generated], expectedRevision: 'no_stream' }], ctx);
    await this.store.save(record, content);
    return { ...view(record), exportSha256: exportSigned.sha256, exportTargets: projectExport.targets };
  }

  async list(principal: Principal, projectId: number, now: Date) {
    await this.whole(principal, projectId);
    await this.store.purgeExpired(now.toISOString());
    return (await this.store.list(projectId)).map(view);
  }

  /** The zip's bytes, audited: the project export inside leaves the platform (VGL-SEC-032). */
  async download(principal: Principal, ctx: RequestContext, projectId: number, id: number) {
    await this.whole(principal, projectId);
    await this.store.purgeExpired(ctx.now.toISOString());
    const found = await this.store.content(projectId, id);
    if (!found) throw refuse.notFound(`No evidence bundle ${id} of project ${projectId}.`);
    if (!found.content) throw new DomainError('gone', `Evidence bundle ${id} passed evidence_retention_days on ${found.record.purgedAt}: only its digest (${found.record.sha256}) is kept.`);
    const manifest = JSON.parse(found.record.manifest);
    const embedded = manifest.files.find((f: { path: string }) => f.path === 'project-export.json');
    await this.commands.appendAll([{
      stream: streams.projectExports(projectId), expectedRevision: 'any',
      events: [projectExported({ projectId, sha256: embedded.sha256, size: embedded.size, schema: 'vigil-project-export', version: '1.1', asOf: manifest.bundle.asOf, targets: [], account: principal.accountId })],
    }], ctx);
    return { record: found.record, content: found.content };
  }

  private async whole(principal: Principal, projectId: number) {
    if (!(await this.reads.project(principal, projectId)).whole) throw refuse.notFound(`No project ${projectId} is visible to you.`);
  }
}

/** The instant a bundle answers for, from its stored manifest. */
const asOfOf = (r: EvidenceRecord): string => { try { return JSON.parse(r.manifest).bundle.asOf; } catch { return r.createdAt; } };
const view = (r: EvidenceRecord) => ({ id: r.id, projectId: r.projectId, accountId: r.accountId, createdAt: r.createdAt, asOf: asOfOf(r), expiresAt: r.expiresAt, sha256: r.sha256, size: r.size, purgedAt: r.purgedAt, available: r.purgedAt === null });
