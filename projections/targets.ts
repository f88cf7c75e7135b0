import { Knex } from 'knex';
import { RecordedEvent } from '../application/ports/event-store';
import type { ContainerImageRegisteredData, RepositoryRegisteredData, TargetDeletedData, TargetUpdatedData } from '../domain/targets';
import { Projection } from './engine/projection';

/** solutions, projects, repositories, containers. */
const TABLE = { repository: 'repositories', container: 'containers' } as const;

const COLUMN: Record<string, string> = {
  name: 'name', projectId: 'project_id', scanManualOnly: 'scan_manual_only', scanIntervalMinutes: 'scan_interval_minutes', scanCron: 'scan_cron',
  url: 'url', identity: 'identity', branch: 'branch', subPath: 'sub_path', image: 'image',
};

function scheduleColumns(d: RepositoryRegisteredData | ContainerImageRegisteredData) {
  return { scan_manual_only: d.scanManualOnly, scan_interval_minutes: d.scanIntervalMinutes, scan_cron: d.scanCron };
}

type Handler = (trx: Knex.Transaction, e: RecordedEvent<any>) => Promise<unknown>;

const handlers: Record<string, Handler> = {
  SolutionCreated: (trx, e) => trx('solutions').insert({ id: e.data.id, name: e.data.name, created_at: e.metadata.at }),
  ProjectCreated: (trx, e) => trx('projects').insert({ id: e.data.id, name: e.data.name, solution_id: e.data.solutionId, created_at: e.metadata.at }),
  RepositoryRegistered: (trx, e: RecordedEvent<RepositoryRegisteredData>) => trx('repositories').insert({
    id: e.data.id, url: e.data.url, identity: e.data.identity, uniqueness_key: e.data.uniquenessKey, branch: e.data.branch, sub_path: e.data.subPath,
    detected_languages: null, name: e.data.name, project_id: e.data.projectId, ...scheduleColumns(e.data), last_scheduled_scan_at: null,
    created_by: e.metadata.actor, created_at: e.metadata.at, updated_at: e.metadata.at,
  }),
  ContainerImageRegistered: (trx, e: RecordedEvent<ContainerImageRegisteredData>) => trx('containers').insert({
    id: e.data.id, image: e.data.image, name: e.data.name, project_id: e.data.projectId, ...scheduleColumns(e.data), last_scheduled_scan_at: null,
    created_by: e.metadata.actor, created_at: e.metadata.at, updated_at: e.metadata.at,
  }),
  TargetUpdated: (trx, e: RecordedEvent<TargetUpdatedData>) => {
    const row: Record<string, unknown> = { updated_at: e.metadata.at };
    for (const [field, value] of Object.entries(e.data.changes)) if (COLUMN[field]) row[COLUMN[field]] = value;
    if (e.data.uniquenessKey) row.uniqueness_key = e.data.uniquenessKey.current;
    return trx(TABLE[e.data.kind]).where({ id: e.data.id }).update(row);
  },
  TargetDeleted: (trx, e: RecordedEvent<TargetDeletedData>) => trx(TABLE[e.data.kind]).where({ id: e.data.id }).del(),
};

export const targetsProjection: Projection = {
  name: 'targets',
  handles: new Set(Object.keys(handlers)),
  tables: ['solutions', 'projects', 'repositories', 'containers'],
  async apply(trx, events) {
    for (const e of events) await handlers[e.type](trx, e);
  },
};
