/** What a verification of the chain finds (projections/audit/verification.ts). */
export interface ChainVerification {
  valid: boolean;
  /** Entries walked (up to and with the first broken one). */
  entries: number;
  /** seq of the first broken entry (or of the entry the chain lacks). */
  brokenAt: number | null;
  /** Event position of that entry, or of the event the chain lacks. */
  brokenPosition: number | null;
  /**
   * What no longer matches, when it can be told: the event's `eventId`, `stream`, `revision`,
   * `position`, `commit`, `type`, `metadata` (`metadata.actor`, `metadata.address`, `metadata.at`
   * when the change is there), `data`; or the entry's own `prevHash`, `hash`, `actor`, `address`, `at`.
   */
  differs: string[] | null;
  reason: string | null;
}

export interface ChainVerifier {
  verify(): Promise<ChainVerification>;
}

/** One audit entry as the mirror writes it (a JSON line). */
export interface MirroredEntry { seq: number; [field: string]: unknown }

export interface AuditEntries {
  list(after: number, limit: number, filter: Record<string, never>): Promise<{ items: MirroredEntry[] }>;
}

/** Where the mirror has written up to, per file path (so a restart neither skips nor repeats much). */
export interface MirrorPositions {
  get(path: string): Promise<number>;
  set(path: string, seq: number): Promise<void>;
}

/** An append-only JSON-lines file: appended, flushed to disk (fsync), reopened after rotation. */
export interface JsonLinesFile {
  append(lines: readonly string[]): Promise<void>;
  /** Reopens the path (after logrotate moved it: SIGHUP). */
  reopen(): Promise<void>;
  /** Moves the file aside (path.1) and starts a new one when it passed its size. */
  rotateIfLarger(maxBytes: number): Promise<boolean>;
  close(): Promise<void>;
}
