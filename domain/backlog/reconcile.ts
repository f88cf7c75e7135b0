import { Finding, issueKey, IssueLifecycleEvent, Provenance } from './issue';
import { streams } from '../shared/streams';

/** An issue of the scope as the backlog holds it. */
export interface KnownIssue {
  id: number;
  key: string;
  open: boolean;
  resolvedAt: string | null;
  /** Revision of the issue stream: the expected revision of the next append. */
  revision: number;
}

export interface IssueChange {
  stream: string;
  key: string;
  expectedRevision: number | 'no_stream';
  event: IssueLifecycleEvent;
}

export interface Reconciliation {
  created: number;
  resolved: number;
  reopened: number;
  changes: IssueChange[];
}

/** Findings by issue key, the first of each identity kept. */
export function byIdentity(findings: readonly Finding[]): Map<string, Finding> {
  const reported = new Map<string, Finding>();
  for (const f of findings) {
    const key = issueKey(f);
    if (!reported.has(key)) reported.set(key, f);
  }
  return reported;
}

/** Keys the backlog does not know yet: the caller takes that many ids before reconciling. */
export function unknownKeys(reported: ReadonlyMap<string, Finding>, known: ReadonlyMap<string, KnownIssue>): string[] {
  return [...reported.keys()].filter((k) => !known.has(k));
}

/**
 * One report of a tool scope against the backlog of that scope (spec 1 §4.3 "each run's tool is
 * its own scope"): what it reports and the backlog lacks is created; what the backlog has resolved
 * and it reports again is reopened; what is open and it no longer reports is resolved. Anything
 * open and reported again is unchanged: a re-import of the same document creates nothing.
 * Findings with the same identity (the same rule in one file on several lines) are one issue.
 */
export function reconcile(
  reported: ReadonlyMap<string, Finding>,
  known: ReadonlyMap<string, KnownIssue>,
  newIds: ReadonlyMap<string, number>,
  provenance: Provenance,
  at: string,
): Reconciliation {
  const changes: IssueChange[] = [];
  let created = 0;
  let reopened = 0;
  for (const [key, f] of reported) {
    const issue = known.get(key);
    if (!issue) {
      const id = newIds.get(key);
      if (id === undefined) throw new Error(`reconcile: no id for new issue ${key}`);
      created++;
      // Object.assign rather than { ...f, id, ... }: in V8 a spread followed by more properties
      // gives each object a shape of its own (about 570 bytes more per event, 28 MB for 50,000).
      const data = Object.assign({}, f, { id, key, provenance, at });
      changes.push({ stream: streams.issue(key), key, expectedRevision: 'no_stream', event: { type: 'IssueDetected', data } });
    } else if (!issue.open) {
      reopened++;
      changes.push({
        stream: streams.issue(key), key, expectedRevision: issue.revision,
        event: { type: 'IssueReopened', data: { id: issue.id, key, previousResolvedAt: issue.resolvedAt ?? at, provenance, severity: f.severity, line: f.line, at } },
      });
    }
  }
  let resolved = 0;
  for (const issue of known.values()) {
    if (issue.open && !reported.has(issue.key)) {
      resolved++;
      changes.push({ stream: streams.issue(issue.key), key: issue.key, expectedRevision: issue.revision, event: { type: 'IssueResolved', data: { id: issue.id, key: issue.key, provenance, at } } });
    }
  }
  return { created, resolved, reopened, changes };
}
