import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { ContainerImageRegisteredData, RepositoryRegisteredData, TargetUpdatedData } from '../../domain/targets';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * `target_placements` (v030): every project a target was ever placed in. The targets table says
 * where a target is now and forgets a deleted one; an export as of a past instant (issue #11) needs
 * the targets that were in a project then, which it folds from their streams: this table only names
 * the candidates, so it never shrinks. Its own projection (not the targets one), so that an
 * installation upgraded to v030 fills it from the start of the log.
 */
const place = (w: RowWriter, kind: TargetKind, id: number, projectId: number | null | undefined, at: string) => {
  if (projectId === null || projectId === undefined) return;
  w.upsert('target_placements', { target_kind: kind, target_id: id, project_id: projectId, last_placed_at: at }, ['target_kind', 'target_id', 'project_id']);
};

const handlers: Record<string, (w: RowWriter, e: RecordedEvent<any>) => void> = {
  RepositoryRegistered: (w, e: RecordedEvent<RepositoryRegisteredData>) => place(w, 'repository', e.data.id, e.data.projectId, e.metadata.at),
  ContainerImageRegistered: (w, e: RecordedEvent<ContainerImageRegisteredData>) => place(w, 'container', e.data.id, e.data.projectId, e.metadata.at),
  TargetUpdated: (w, e: RecordedEvent<TargetUpdatedData>) => place(w, e.data.kind, e.data.id, e.data.changes.projectId, e.metadata.at),
};

export const targetPlacementsProjection: Projection = {
  name: 'target-placements',
  handles: new Set(Object.keys(handlers)),
  tables: ['target_placements'],
  async apply(w, events) {
    for (const e of events) handlers[e.type](w, e);
  },
};
