import { ExportService } from '../../application/exports/export-service';
import { VexIngestService } from '../../application/exports/vex-ingest';
import { EvidenceService } from '../../application/exports/evidence';
import { SqlEvidenceStore } from '../../infrastructure/exports/sql-evidence-store';
import { FileByteSpools } from '../../infrastructure/exports/byte-spool';
import { YazlZipWriter } from '../../infrastructure/exports/zip-writer';
import { SqlAuditExtract } from '../../projections/audit/evidence-extract';
import type { IdentityContext } from './identity';
import { PlatformKeys } from '../../application/signing/platform-keys';
import { SqlExportReads } from '../../projections/backlog/export-reads';
import { IssueAsOfQueries } from '../../projections/backlog/issue-as-of';
import type { BacklogContext } from './backlog';
import { epssScoresOf } from '../../infrastructure/feeds/epss-table';
import { remediationWindowsOf } from '../../application/triage/remediation-windows';
import { EcdsaKeyMaterial } from '../../infrastructure/crypto/ecdsa-keys';
import { Core } from './core';
import { TargetsContext } from './targets';

/** Exports and the platform signing key (issue #11). */
export function composeExports(core: Core, identity: IdentityContext, targets: TargetsContext, backlog: BacklogContext) {
  const platformKeys = new PlatformKeys(core.config.exports.signingKeyPem, targets.secretBox, core.store, core.commands, core.clock, new EcdsaKeyMaterial());
  const { config } = core;
  const reads = new SqlExportReads(core.db, core.visibility);
  const exports = new ExportService(reads, core.store, core.clock, {
    author: config.exports.vexAuthor, brand: config.brandName, version: config.version, publicUrl: config.publicUrl ? config.publicUrl.replace(/\/+$/, '') : null,
  });
  // The audit chain takes every event: a type no projection names is awaited by exactly those taking all (the chain among them).
  const auditExtract = new SqlAuditExtract(core.db, async () => core.projections.waitFor(await core.store.head(), ['vigil:every-event'], config.readYourWritesTimeoutMs));
  // Documents past 1 MB wait for sending in a file of the temporary directory (TMPDIR), not in memory (ADR 0016).
  const exportSpools = new FileByteSpools();
  return { platformKeys, exports, exportSpools, issueAsOf: new IssueAsOfQueries(backlog.backlogQueries, core.store, (generation, cves) => epssScoresOf(core.db, generation, cves), remediationWindowsOf), vexIngest: new VexIngestService(reads, backlog.triage),
    evidence: new EvidenceService(exports, reads, auditExtract, new SqlEvidenceStore(core.db), new YazlZipWriter(), core.commands, core.ids,
      () => identity.settings.get<number>('evidence_retention_days'), exportSpools),
  };
}

export type ExportsContext = ReturnType<typeof composeExports>;
