import type { TargetKind } from '../shared/target-kind';
import type { DomainEvent } from '../shared/decider';
import { sha256Hex } from '../shared/digest';
import type { Severity } from '../gate/severity';

/**
 * The issue backlog (spec 1 §2.3): one stream per issue, `issue-<key>`, where the key digests the
 * issue's identity. Scans, imports and plugins write the lifecycle events below on it; triage
 * writes its decisions on the same stream, so a decision taken on a stale read of the issue meets
 * a wrong expected revision (409 issue-changed-meanwhile).
 */
export const ISSUE_TYPES = ['vulnerability', 'secret', 'iac', 'sast', 'license', 'imported', 'plugin'] as const;
export type IssueType = (typeof ISSUE_TYPES)[number];

/** What identifies an issue: never the line (spec 1 §2.3). */
export interface IssueIdentity {
  targetKind: TargetKind;
  targetId: number;
  /** `import:<slug>/<tool>`, `plugin:<id>`, or a scanner kind such as `scanner:vulnerability`. */
  toolKey: string;
  /** Rule id, or the vulnerability identifier for matchers. */
  ruleId: string;
  /** Normalised relative path, or the package coordinate for dependency findings; '' for none. */
  path: string;
}

export function issueKey(identity: IssueIdentity): string {
  return sha256Hex([identity.targetKind, identity.targetId, identity.toolKey, identity.ruleId, identity.path].join('\u0000'));
}

/** The tool key of an imported issue: slug and tool lowercase (spec 1 §2.3). */
export function importToolKey(slug: string, tool: string): string {
  return `import:${slug.toLowerCase()}/${tool.toLowerCase()}`;
}

export interface Provenance {
  /** imported, scan or plugin. */
  origin: 'import' | 'scan' | 'plugin';
  /** The declared source's slug, for imports. */
  source: string | null;
  toolName: string;
  toolVersion: string | null;
  /** The import record or scan that saw it. */
  recordId: number;
}

/** One finding as a scanner or an import reports it, before reconciliation. */
export interface Finding extends IssueIdentity {
  type: IssueType;
  severity: Severity;
  line: number | null;
  title: string;
  identifier: string | null;
  packageName: string | null;
  packageVersion: string | null;
  fixable: boolean | null;
  /** The tool that reported it, when one report carries several tools (SARIF runs). */
  toolName?: string;
  toolVersion?: string | null;
  /**
   * OWASP Top 10 categories the rule names, in normal form (`A03:2021`, domain/backlog/owasp.ts),
   * sorted; absent when it names none (and on issues detected before issue #16).
   */
  owaspCategories?: string[];
}

export type IssueDetected = DomainEvent<'IssueDetected', Finding & { id: number; key: string; provenance: Provenance; at: string }>;
export type IssueResolved = DomainEvent<'IssueResolved', { id: number; key: string; provenance: Provenance; at: string }>;
export type IssueReopened = DomainEvent<'IssueReopened', { id: number; key: string; previousResolvedAt: string; provenance: Provenance; severity: Severity; line: number | null; at: string }>;
export type IssueLifecycleEvent = IssueDetected | IssueResolved | IssueReopened;
