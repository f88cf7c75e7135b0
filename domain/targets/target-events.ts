import { DomainEvent } from '../shared/decider';
import type { CredentialRef } from './clone-endpoint';
import { ScheduleSettings } from './schedule';
import { TargetKind } from '../shared/target-kind';

/**
 * Events of a target stream (one stream per target), the state they fold into, and evolve.
 * Times are ISO 8601 strings taken from the command; `actor` is who the application says acted.
 */

/**
 * Where its scans may run (spec 1 §2.1 "required agent", S1.2.1-20): the one agent that claims them
 * (null: any executor), and labels the claiming executor must all carry ([]: none). Absent in older
 * events: neither.
 */
export interface Placement {
  readonly requiredAgentId?: number | null;
  readonly requiredLabels?: readonly string[];
}

interface Registration extends ScheduleSettings, Placement {
  readonly id: number;
  readonly name: string;
  readonly projectId: number | null;
  readonly registeredAt: string;
  readonly registeredBy: string;
}

export interface RepositoryRegisteredData extends Registration {
  readonly url: string;
  /** repositoryIdentity(url): what GET /repositories/duplicates groups by. */
  readonly identity: string;
  readonly branch: string;
  /** '' for the repository root. */
  readonly subPath: string;
  /** The reservation the application took for (identity, branch, subPath). */
  readonly uniquenessKey: string;
  /** The stored clone credential it names; absent (older events too) when none. */
  readonly credential?: CredentialRef;
}

export interface ContainerImageRegisteredData extends Registration {
  readonly image: string;
}

/** Only the fields an update changed, as stored after normalisation. */
export interface TargetChanges {
  readonly name?: string;
  readonly projectId?: number | null;
  readonly scanManualOnly?: boolean;
  readonly scanIntervalMinutes?: number | null;
  readonly scanCron?: string | null;
  readonly url?: string;
  readonly identity?: string;
  readonly branch?: string;
  readonly subPath?: string;
  readonly image?: string;
  /** Repositories: the stored clone credential named now, null when cleared. */
  readonly credential?: CredentialRef | null;
  readonly requiredAgentId?: number | null;
  readonly requiredLabels?: readonly string[];
}

export interface TargetUpdatedData {
  readonly id: number;
  readonly kind: TargetKind;
  readonly changes: TargetChanges;
  /** Present when url, branch or subPath moved the repository to another key: release previous, reserve current. */
  readonly uniquenessKey?: { readonly previous: string; readonly current: string };
  readonly updatedAt: string;
  readonly updatedBy: string;
}

export interface TargetDeletedData {
  readonly id: number;
  readonly kind: TargetKind;
  /** The reservation to release; null for container images, which hold none. */
  readonly uniquenessKey: string | null;
  readonly deletedAt: string;
  readonly deletedBy: string;
}

export type RepositoryRegistered = DomainEvent<'RepositoryRegistered', RepositoryRegisteredData>;
export type ContainerImageRegistered = DomainEvent<'ContainerImageRegistered', ContainerImageRegisteredData>;
export type TargetUpdated = DomainEvent<'TargetUpdated', TargetUpdatedData>;
export type TargetDeleted = DomainEvent<'TargetDeleted', TargetDeletedData>;
export type TargetEvent = RepositoryRegistered | ContainerImageRegistered | TargetUpdated | TargetDeleted;

interface TargetBase extends ScheduleSettings, Placement {
  readonly id: number;
  readonly name: string;
  readonly projectId: number | null;
  readonly registeredAt: string;
}

export interface RepositoryTarget extends TargetBase {
  readonly kind: 'repository';
  readonly url: string;
  readonly identity: string;
  readonly branch: string;
  readonly subPath: string;
  readonly uniquenessKey: string;
  readonly credential?: CredentialRef | null;
}

export interface ContainerTarget extends TargetBase {
  readonly kind: 'container';
  readonly image: string;
}

export type Target = RepositoryTarget | ContainerTarget;

export type TargetStatus = 'none' | 'active' | 'deleted';

export type TargetState =
  | { readonly status: 'none' }
  | { readonly status: 'active' | 'deleted'; readonly target: Target };

export const initialTargetState = (): TargetState => ({ status: 'none' });

function registered(kind: 'repository', data: RepositoryRegisteredData): RepositoryTarget;
function registered(kind: 'container', data: ContainerImageRegisteredData): ContainerTarget;
function registered(kind: TargetKind, data: RepositoryRegisteredData | ContainerImageRegisteredData): Target {
  const { registeredBy: _by, ...fields } = data;
  return { kind, ...fields } as Target;
}

export function evolveTarget(state: TargetState, event: TargetEvent): TargetState {
  switch (event.type) {
    case 'RepositoryRegistered':
      return { status: 'active', target: registered('repository', event.data) };
    case 'ContainerImageRegistered':
      return { status: 'active', target: registered('container', event.data) };
    case 'TargetUpdated': {
      if (state.status === 'none') return state;
      const target = { ...state.target, ...event.data.changes } as Target;
      const key = event.data.uniquenessKey;
      return { status: state.status, target: key && target.kind === 'repository' ? { ...target, uniquenessKey: key.current } : target };
    }
    case 'TargetDeleted':
      return state.status === 'none' ? state : { status: 'deleted', target: state.target };
  }
}
