import { DomainError, refuse } from '../../domain/shared/decider';

/**
 * If-Match on a decision (spec 1 §4.5, §7): the ETag GET /issues/{id} answered, `"<revision>"`.
 * Absent or `*`: no condition (a concurrent write is then retried against the fresh issue).
 * Weak tags (`W/"7"`) and a bare revision (`7`) are read the same way; anything else is a bad
 * request rather than a stale read, since Vigil never issued it.
 */
export function parseIfMatch(header: string | readonly string[] | undefined | null, field = 'If-Match'): number | undefined {
  if (header === undefined || header === null) return undefined;
  const text = (Array.isArray(header) ? header.join(',') : (header as string)).trim();
  if (text === '' || text === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,15})"$|^(\d{1,15})$/.exec(text);
  if (!match) {
    throw refuse.invalid(`${field} takes one ETag as GET /issues/{id} answers it, e.g. "7"; ${JSON.stringify(text)} is not one.`, { field });
  }
  return Number(match[1] ?? match[2]);
}

/** 409 urn:vigil:problem:issue-changed-meanwhile (spec 1 §7, S1.4.5-10). */
export function issueChangedMeanwhile(): DomainError {
  return refuse.conflict(
    'The issue changed after you read it (a scan, an import or another decision wrote it). Read it again and decide anew.',
    'issue-changed-meanwhile',
  );
}
