import type { ExportIssue, ExportScope, ExportTarget, ScopeKind } from '../../domain/exports/model';
import type { TargetKind } from '../../domain/shared/target-kind';
import type { Principal } from '../identity/principal';

/** A build or scanner component of a target's inventory (spec 1 §4.3: source build, scanner or both). */
export interface InventoryEntry {
  name: string;
  version: string | null;
  purl: string | null;
  type: string;
  source: 'build' | 'scanner' | 'both';
}

/** What the exports read from the read models (projections/backlog/export-reads.ts implements it). */
export interface ExportReads {
  /** The scope and the targets in it the caller sees; 404 alike for unknown and unseen. */
  scope(principal: Principal, kind: ScopeKind, id: number): Promise<{ scope: ExportScope; targets: ExportTarget[]; projectIds: number[] }>;
  /**
   * Every target ever placed in one of these projects (target_placements, deleted ones included), for
   * as_of: their membership at the instant is then folded from their streams. `seen` says whether the
   * caller sees the target, judged now, placed in the project it was in at the instant (a grant of that
   * project, or of the target) or where it is now.
   */
  placedTargets(principal: Principal, projectIds: readonly number[]): Promise<Array<{ kind: TargetKind; id: number; seen: (projectIdThen: number | null) => boolean }>>;
  /** The issues of these targets as the read model holds them now, in pages. */
  issues(targets: readonly ExportTarget[]): AsyncIterable<ExportIssue[]>;
  /** The stream keys of every issue these targets have had (for folding up to an instant). */
  issueKeys(targets: readonly ExportTarget[]): Promise<string[]>;
  /** The open issues the caller sees whose vulnerability id (identifier or rule) is one of these, with their revision (VEX ingest). */
  matchingIssues(principal: Principal, vulnerabilityIds: readonly string[], target?: { kind: TargetKind; id: number } | null): Promise<Array<ExportIssue & { revision: number }>>;
  /** A project's name and solution, and whether the caller sees it whole (granted the project, not only some targets). */
  project(principal: Principal, id: number): Promise<{ id: number; name: string; solution: { id: number; name: string } | null; whole: boolean }>;
  /** The scores EPSS generation `generation` gave these CVEs (kept in epss_score_history once replaced). */
  epssScores(generation: number, cves: readonly string[]): Promise<Map<string, number>>;
  /** The build components of a repository's branch from its newest build SBOM (accepted at or before `asOf` when given). */
  buildInventory(target: ExportTarget, asOf: string | null): Promise<InventoryEntry[]>;
}

/** A stored evidence bundle (evidence_bundles, v020): its bytes until it expires, its digest always. */
export interface EvidenceRecord {
  id: number;
  projectId: number;
  accountId: number;
  createdAt: string;
  expiresAt: string;
  sha256: string;
  size: number;
  manifest: string;
  purgedAt: string | null;
}

export interface EvidenceStore {
  save(record: EvidenceRecord, content: Buffer): Promise<void>;
  list(projectId: number): Promise<EvidenceRecord[]>;
  content(projectId: number, id: number): Promise<{ record: EvidenceRecord; content: Buffer | null } | null>;
  /** Drops the bytes of bundles expired at `now` (digests kept); answers how many. */
  purgeExpired(now: string): Promise<number>;
}

/** The audit chain's entries of some streams, and its head, as they stood at an instant (projections/audit). */
export interface AuditExtract {
  /**
   * Waits until the chain holds every event appended so far: the audit projection follows the log, and
   * a bundle as of a recent instant must not miss entries it has not taken yet. False: not in time.
   */
  settle(): Promise<boolean>;
  /** The entries of these streams decided at or before `upTo` (ISO instant), in chain order. */
  entries(streams: readonly string[], upTo: string): Promise<Array<Record<string, unknown>>>;
  /** The newest entry decided at or before `upTo`: the chain's head then. */
  head(upTo: string): Promise<{ seq: number; hash: string; at: string } | null>;
}

export interface ZipWriter {
  /** A zip of these files in this order, every entry dated `mtime`: the same files give the same bytes. */
  zip(files: ReadonlyArray<{ path: string; bytes: Buffer }>, mtime: Date): Promise<Buffer>;
}

/**
 * Where a document's bytes wait between being signed and being sent (ADR 0016): the signature goes in
 * a header, so it must be computed over every byte before the first one leaves. A spool keeps a small
 * document in memory and puts a large one in a temporary file, so memory stays bounded whatever the
 * document's size; infrastructure/exports/byte-spool.ts implements it.
 */
export interface ByteSpool {
  write(bytes: Buffer): Promise<void>;
  /** No more bytes: what was written can be read. */
  end(): Promise<void>;
  /** The bytes written, in pieces of at most 64 KB from a file (each piece as written while in memory). */
  read(): AsyncIterable<Buffer>;
  /** The bytes as one buffer (the evidence bundle zips them in memory anyway). */
  bytes(): Promise<Buffer>;
  /** Whether the bytes went to a file (for the record: the benchmark and the specs). */
  readonly spilled: boolean;
  /** Closes and removes the file, if any; safe to call twice. */
  dispose(): Promise<void>;
}

export interface ByteSpools {
  create(): ByteSpool;
}
