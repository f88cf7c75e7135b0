import type { DomainEvent } from '../shared/decider';

/** Spec 2 §6: a project export downloaded or handed to a plugin signals VGL-SEC-032, the SHA-256 first in the message. */
export const PROJECT_EXPORT_LEFT_SIEM = { signature: 'VGL-SEC-032', name: 'Project export left the platform', severity: 4 } as const;

/**
 * PROJECT_EXPORTED (S2.6-81): a project export was downloaded. Stream `project-exports-<id>`; the audit
 * chain takes it like every other event, and the SIEM signal rides on it.
 */
export type ProjectExported = DomainEvent<'ProjectExported', {
  projectId: number;
  sha256: string;
  size: number;
  schema: string;
  version: string;
  asOf: string;
  /** The targets the export carried. */
  targets: Array<{ kind: string; id: number }>;
  account: number;
  siem: typeof PROJECT_EXPORT_LEFT_SIEM & { message: string };
}>;

export function projectExported(data: Omit<ProjectExported['data'], 'siem'>): ProjectExported {
  return {
    type: 'ProjectExported',
    data: { ...data, siem: { ...PROJECT_EXPORT_LEFT_SIEM, message: `${data.sha256} project ${data.projectId} export ${data.version} (${data.size} bytes, as of ${data.asOf}) downloaded by account ${data.account}` } },
  };
}
