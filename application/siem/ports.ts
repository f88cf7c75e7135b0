import type { SiemProtocol } from '../../domain/siem/endpoint';
import type { MinimumSeverity, Signature } from '../../domain/siem/signatures';
import type { SiemSignal } from '../../domain/siem/cef';

/** Where messages go, as read when they leave (S2.6-06); the Authorization header opened. */
export interface Destination {
  protocol: SiemProtocol;
  endpoint: string;
  authorization: string | null;
  tlsCaPem: string | null;
  allowPrivate: boolean;
}

/** One message on its way: the CEF line and what the syslog header needs. */
export interface OutgoingMessage {
  signature: Signature;
  severity: number;
  /** Event time, epoch ms. */
  at: number;
  cef: string;
}

export interface SiemTransport {
  /** Sends in order; resolves when every message was handed over, rejects at the first failure. */
  send(destination: Destination, messages: readonly OutgoingMessage[]): Promise<void>;
}

/** The export's configuration as the siem projection keeps it (no Authorization). */
export interface StoredSiemConfig {
  enabled: boolean;
  protocol: SiemProtocol;
  endpoint: string;
  authorizationSet: boolean;
  tlsCaPem: string | null;
  minimumSeverity: MinimumSeverity;
  generation: number;
  updatedAt: string;
}

/** A queued event: what the CEF line is written from (suser already resolved). */
export interface QueuedSignal extends Omit<SiemSignal, 'signature'> {
  signature: Signature;
  generation: number;
  attempts: number;
}

export type DeliveryStatus = 'retrying' | 'delivered' | 'failed' | 'abandoned' | 'below_minimum';

/** The outbox: queued rows (projections/siem) and the deliverer's state per row (siem_deliveries). */
export interface Outbox {
  config(): Promise<StoredSiemConfig | null>;
  /** Rows whose retry is due, oldest first. */
  retriesDue(now: Date, limit: number): Promise<QueuedSignal[]>;
  /**
   * Rows never tried after a position (the turn's watermark), oldest first, and the position read up
   * to (the next watermark; null when nothing is left after it).
   */
  /** A position below every row never tried (0 when unsure): where a turn that reads them all starts. */
  untriedFloor(): Promise<number>;
  fresh(afterPosition: number, limit: number): Promise<{ rows: QueuedSignal[]; scannedTo: number | null }>;
  mark(rows: ReadonlyArray<{ externalId: string; attempts: number }>, status: DeliveryStatus, now: Date, details?: { nextAttemptAt?: Date | null; error?: string | null; destination?: string | null }): Promise<void>;
}

/** The sealed Authorization header, opened (read from the siem-config stream). */
export interface SiemSecrets {
  authorization(): Promise<string | null>;
}
