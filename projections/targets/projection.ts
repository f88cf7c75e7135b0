import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { ContainerImageRegisteredData, RepositoryRegisteredData, TargetDeletedData, TargetUpdatedData } from '../../domain/targets';
import { ScanCompletedData } from '../../domain/scans/scan';
import { SCAN_STREAM } from '../../domain/shared/streams';
import type { ScanScheduled } from '../../domain/scans/waiting';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/** solutions, projects, repositories, containers, target_requirements. */
const TABLE = { repository: 'repositories', container: 'containers' } as const;

const COLUMN: Record<string, string> = {
  name: 'name', projectId: 'project_id', scanManualOnly: 'scan_manual_only', scanIntervalMinutes: 'scan_interval_minutes', scanCron: 'scan_cron',
  url: 'url', identity: 'identity', branch: 'branch', subPath: 'sub_path', image: 'image',
};

function scheduleColumns(d: RepositoryRegisteredData | ContainerImageRegisteredData) {
  return { scan_manual_only: d.scanManualOnly, scan_interval_minutes: d.scanIntervalMinutes, scan_cron: d.scanCron };
}

function placementColumns(agent: number | null | undefined, labels: readonly string[] | undefined) {
  return { required_agent_id: agent ?? null, required_labels: labels && labels.length ? JSON.stringify(labels) : null };
}

/** The target's rows of target_requirements (v029): one per requirement the claiming executor must carry. */
async function writeRequirements(w: RowWriter, kind: 'repository' | 'container', id: number, agent: number | null | undefined, labels: readonly string[] | undefined) {
  await w.delete('target_requirements', { target_kind: kind, target_id: id });
  const rows = [...(agent ? [`agent:${agent}`] : []), ...(labels ?? []).map((l) => `label:${l}`)];
  for (const requirement of rows) w.insert('target_requirements', { target_kind: kind, target_id: id, requirement }, ['target_kind', 'target_id', 'requirement']);
}

type ScanScheduledData = ScanScheduled['data'];

type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

const handlers: Record<string, Handler> = {
  SolutionCreated: (w, e) => w.insert('solutions', { id: e.data.id, name: e.data.name, created_at: e.metadata.at }),
  ProjectCreated: (w, e) => w.insert('projects', { id: e.data.id, name: e.data.name, solution_id: e.data.solutionId, created_at: e.metadata.at }),
  RepositoryRegistered: async (w, e: RecordedEvent<RepositoryRegisteredData>) => {
    await w.insert('repositories', {
      id: e.data.id, url: e.data.url, identity: e.data.identity, uniqueness_key: e.data.uniquenessKey, branch: e.data.branch, sub_path: e.data.subPath,
      detected_languages: null, name: e.data.name, project_id: e.data.projectId, ...scheduleColumns(e.data), last_scheduled_scan_at: null,
      credential_id: e.data.credential?.id ?? null, credential_kind: e.data.credential?.kind ?? null,
      ...placementColumns(e.data.requiredAgentId, e.data.requiredLabels),
      created_by: e.metadata.actor, created_at: e.metadata.at, updated_at: e.metadata.at,
    });
    if (e.data.requiredAgentId || e.data.requiredLabels?.length) await writeRequirements(w, 'repository', e.data.id, e.data.requiredAgentId, e.data.requiredLabels);
  },
  ContainerImageRegistered: async (w, e: RecordedEvent<ContainerImageRegisteredData>) => {
    await w.insert('containers', {
      id: e.data.id, image: e.data.image, name: e.data.name, project_id: e.data.projectId, ...scheduleColumns(e.data), last_scheduled_scan_at: null,
      ...placementColumns(e.data.requiredAgentId, e.data.requiredLabels),
      created_by: e.metadata.actor, created_at: e.metadata.at, updated_at: e.metadata.at,
    });
    if (e.data.requiredAgentId || e.data.requiredLabels?.length) await writeRequirements(w, 'container', e.data.id, e.data.requiredAgentId, e.data.requiredLabels);
  },
  TargetUpdated: async (w, e: RecordedEvent<TargetUpdatedData>) => {
    const row: Record<string, unknown> = { updated_at: e.metadata.at };
    for (const [field, value] of Object.entries(e.data.changes)) if (COLUMN[field]) row[COLUMN[field]] = value;
    if (e.data.uniquenessKey) row.uniqueness_key = e.data.uniquenessKey.current;
    if (e.data.changes.credential !== undefined) Object.assign(row, { credential_id: e.data.changes.credential?.id ?? null, credential_kind: e.data.changes.credential?.kind ?? null });
    const { requiredAgentId, requiredLabels } = e.data.changes;
    if (requiredAgentId === undefined && requiredLabels === undefined) return w.update(TABLE[e.data.kind], { id: e.data.id }, row);
    // Placement changed: the row's other half is read back (the change names only what moved).
    const current: { required_agent_id: number | null; required_labels: string | null } | undefined = await w.run([TABLE[e.data.kind]],
      (trx) => trx(TABLE[e.data.kind]).where({ id: e.data.id }).first('required_agent_id', 'required_labels'));
    const agent = requiredAgentId !== undefined ? requiredAgentId : current?.required_agent_id ?? null;
    const labels = requiredLabels !== undefined ? requiredLabels : current?.required_labels ? JSON.parse(current.required_labels) as string[] : [];
    await w.update(TABLE[e.data.kind], { id: e.data.id }, { ...row, ...placementColumns(agent, labels) });
    return writeRequirements(w, e.data.kind, e.data.id, agent, labels);
  },
  TargetDeleted: async (w, e: RecordedEvent<TargetDeletedData>) => {
    await w.delete(TABLE[e.data.kind], { id: e.data.id });
    await w.delete('target_requirements', { target_kind: e.data.kind, target_id: e.data.id });
  },
  // The scans context (domain/scans): the scheduler's round instant, and the newest completed scan's languages.
  ScanScheduled: (w, e: RecordedEvent<ScanScheduledData>) => w.update(TABLE[e.data.targetKind], { id: e.data.targetId }, { last_scheduled_scan_at: e.data.scheduledAt }),
  ScanCompleted: (w, e: RecordedEvent<ScanCompletedData>) => {
    if (!SCAN_STREAM.test(e.stream) || e.data.targetKind !== 'repository') return undefined;
    return w.update('repositories', { id: e.data.targetId }, { detected_languages: e.data.detectedLanguages === null ? null : JSON.stringify(e.data.detectedLanguages) });
  },
};

export const targetsProjection: Projection = {
  name: 'targets',
  handles: new Set(Object.keys(handlers)),
  tables: ['solutions', 'projects', 'repositories', 'containers', 'target_requirements'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
