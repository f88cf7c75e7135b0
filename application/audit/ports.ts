/** What a verification of the chain finds (projections/audit/verification.ts). */
export interface ChainVerification {
  valid: boolean;
  entries: number;
  brokenAt: number | null;
  brokenPosition: number | null;
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
