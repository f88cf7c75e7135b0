import { ExportService } from '../../application/exports/export-service';
import { PlatformKeys } from '../../application/signing/platform-keys';
import { SqlExportReads } from '../../projections/backlog/export-reads';
import { IssueAsOfQueries } from '../../projections/backlog/issue-as-of';
import type { BacklogContext } from './backlog';
import { EcdsaKeyMaterial } from '../../infrastructure/crypto/ecdsa-keys';
import { Core } from './core';
import { TargetsContext } from './targets';

/** Exports and the platform signing key (issue #11). */
export function composeExports(core: Core, targets: TargetsContext, backlog: BacklogContext) {
  const platformKeys = new PlatformKeys(core.config.exports.signingKeyPem, targets.secretBox, core.store, core.commands, core.clock, new EcdsaKeyMaterial());
  const { config } = core;
  const exports = new ExportService(new SqlExportReads(core.db, core.visibility), core.store, core.clock, {
    author: config.exports.vexAuthor, brand: config.brandName, version: config.version, publicUrl: config.publicUrl ? config.publicUrl.replace(/\/+$/, '') : null,
  });
  return { platformKeys, exports, issueAsOf: new IssueAsOfQueries(backlog.backlogQueries, core.store) };
}

export type ExportsContext = ReturnType<typeof composeExports>;
