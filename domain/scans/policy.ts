/**
 * The numbers of spec 1 §3.1 and §8.2 for scans: attempts, retry delays, the lease, the reason text.
 * Pure: the application passes the configured delays (VIGIL_SCAN_RETRY_DELAYS) in each command.
 */

/** "attempts: at most 3" (§2.2); "transient failure, third attempt: failed" (§3.1). */
export const MAX_SCAN_ATTEMPTS = 3;

/** "A lease lapses 20 minutes after the last heartbeat" (§3.1, §8.2). */
export const LEASE_MS = 20 * 60_000;

/** VIGIL_SCAN_RETRY_DELAYS default 1m,5m,15m (§8.2). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000];

/** "reason (one line, at most 1,000 characters)" (§4.7, §8.2). */
export const MAX_REASON_LENGTH = 1000;

/**
 * How long after the failure of attempt `failedAttempt` (1-based) the scan is claimable again: the
 * n-th delay of the list, the last one reused once the list runs out ("1m, then 5m, then 15m, the last
 * delay reused"). An empty list means no wait.
 */
export function retryDelayMs(failedAttempt: number, delaysMs: readonly number[]): number {
  if (delaysMs.length === 0) return 0;
  const index = Math.min(Math.max(failedAttempt, 1), delaysMs.length) - 1;
  return Math.max(0, delaysMs[index]);
}

/** When a lease taken or renewed at `from` lapses. */
export function leaseExpiry(from: Date, leaseMs: number = LEASE_MS): string {
  return new Date(from.getTime() + leaseMs).toISOString();
}

const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+(?::[^\s/@]*)?@/gi;
const BEARER = /\b(bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const SECRET_ASSIGNMENT = /\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)(\s*[=:]\s*)("[^"]*"|'[^']*'|\S+)/gi;
const KNOWN_TOKENS = /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g;

/**
 * The reason shown on a scan: one line (control characters and line breaks become spaces, runs of
 * space collapse), secrets scrubbed (credentials in URLs, bearer tokens, `password=...` and the
 * common token shapes), at most 1,000 characters. An empty reason reads "unclassified failure".
 */
export function failureReason(text: unknown): string {
  const raw = typeof text === 'string' ? text : text === undefined || text === null ? '' : String(text);
  const scrubbed = raw
    .replace(URL_CREDENTIALS, '$1***@')
    .replace(BEARER, '$1 ***')
    .replace(SECRET_ASSIGNMENT, '$1$2***')
    .replace(KNOWN_TOKENS, '***');
  // eslint-disable-next-line no-control-regex
  const oneLine = scrubbed.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (oneLine === '') return 'unclassified failure';
  return oneLine.length <= MAX_REASON_LENGTH ? oneLine : `${oneLine.slice(0, MAX_REASON_LENGTH - 1)}…`;
}
