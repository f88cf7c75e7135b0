import { scheduleView } from '../../domain/targets/schedule';
import type { TargetKind } from '../../domain/shared/target-kind';
import type { TargetRow, TargetView } from '../../application/targets/ports';

/** A row of `repositories` or `containers` as the API shows it; `defaultDays` is the installation's default interval. */
export function targetView(kind: TargetKind, row: TargetRow, defaultDays: number): TargetView {
  const schedule = { scanManualOnly: Boolean(row.scan_manual_only), scanIntervalMinutes: row.scan_interval_minutes === null ? null : Number(row.scan_interval_minutes), scanCron: row.scan_cron };
  const common = {
    id: Number(row.id), name: row.name, projectId: row.project_id === null ? null : Number(row.project_id), ...schedule,
    schedule: scheduleView(schedule, defaultDays), lastScheduledScanAt: row.last_scheduled_scan_at, createdAt: row.created_at, updatedAt: row.updated_at,
    requiredAgentId: row.required_agent_id == null ? null : Number(row.required_agent_id), requiredLabels: row.required_labels ? JSON.parse(row.required_labels) as string[] : [],
  };
  if (kind === 'container') return { ...common, image: row.image! };
  const credentialId = row.credential_id == null ? null : Number(row.credential_id);
  return {
    ...common, url: row.url!, identity: row.identity!, branch: row.branch!, subPath: row.sub_path!,
    detectedLanguages: row.detected_languages ? JSON.parse(row.detected_languages) : null,
    sshKeyId: row.credential_kind === 'ssh_key' ? credentialId : null, httpsTokenId: row.credential_kind === 'https_token' ? credentialId : null,
  };
}
