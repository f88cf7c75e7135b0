import { assertNever, Decider, DomainError, refuse } from '../shared/decider';
import { checkCredentialTransport, CredentialRef, sameCredential } from './clone-endpoint';
import { validateImageReference } from './image-reference';
import { normaliseBranch, normaliseSubPath, repositoryIdentity, uniquenessKey, validateRepositoryUrl } from './repository-identity';
import { ScheduleInput, scheduleOnCreate, scheduleOnUpdate } from './schedule';
import { width } from '../shared/column-widths';
import { characters, grouped, textProblem } from '../shared/text';
import { checkLabels } from '../shared/labels';
import {
  ContainerTarget, evolveTarget, initialTargetState, Placement, RepositoryTarget, Target, TargetChanges, TargetEvent, TargetState, TargetStatus,
} from './target-events';

export * from './target-events';

/**
 * The Target decider, one stream per target. Uniqueness of a repository's (identity, branch, sub-path)
 * spans streams, so it lives in uniqueness.ts; the events here carry the keys the application reserves
 * and releases.
 */

interface Gesture {
  readonly id: number;
  readonly actor: string;
  readonly now: Date;
}

/** What a request says of placement (undefined = not named; null or [] clears). */
export interface PlacementInput {
  readonly requiredAgentId?: number | null;
  readonly requiredLabels?: readonly string[] | null;
}

export interface RegisterRepository extends Gesture, ScheduleInput, PlacementInput {
  readonly type: 'RegisterRepository';
  readonly url: string;
  readonly branch?: string | null;
  readonly subPath?: string | null;
  readonly name?: string | null;
  readonly projectId?: number | null;
  /** The stored clone credential it names (the application checked it exists and fits the host). */
  readonly credential?: CredentialRef | null;
}

export interface RegisterContainer extends Gesture, ScheduleInput, PlacementInput {
  readonly type: 'RegisterContainer';
  readonly image: string;
  readonly name?: string | null;
  readonly projectId?: number | null;
}

/** A PATCH: undefined = not named. A null or blank name goes back to the name derived from url or image. */
export interface TargetPatch extends ScheduleInput, PlacementInput {
  readonly name?: string | null;
  readonly projectId?: number | null;
  readonly url?: string;
  readonly branch?: string | null;
  readonly subPath?: string | null;
  readonly image?: string;
  /** null clears the repository's clone credential. */
  readonly credential?: CredentialRef | null;
}

export interface UpdateTarget extends Gesture {
  readonly type: 'UpdateTarget';
  readonly changes: TargetPatch;
}

export interface DeleteTarget extends Gesture {
  readonly type: 'DeleteTarget';
}

export type TargetCommand = RegisterRepository | RegisterContainer | UpdateTarget | DeleteTarget;
export type TargetCommandType = TargetCommand['type'];

/** Which commands each status accepts; decide consults it and the spec iterates it. */
export const targetTransitions: Readonly<Record<TargetStatus, readonly TargetCommandType[]>> = {
  none: ['RegisterRepository', 'RegisterContainer'],
  active: ['UpdateTarget', 'DeleteTarget'],
  deleted: [],
};

/** The longest name a request gives a target (its column is wider, for names derived from a url or image). */
export const TARGET_NAME_MAX = 200;

function targetId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw refuse.invalid('a target id is a positive integer');
  return id;
}

function projectId(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw refuse.invalid('projectId must be a positive integer');
  return value;
}

/**
 * A name given, trimmed; otherwise the last segment of the repository path (e.g. "repo") or the image
 * as given, cut to the name column (a url or an image may be longer than a name: issue #17).
 */
function targetName(value: unknown, fallback: string, column: 'repositories.name' | 'containers.name'): string {
  if (value !== null && value !== undefined) {
    if (typeof value !== 'string') throw refuse.invalid('name must be a string');
    const name = value.trim();
    const problem = textProblem('name', name, { max: TARGET_NAME_MAX, kind: 'line' });
    if (problem) throw refuse.invalid(problem);
    if (name !== '') return name;
  }
  return [...fallback].slice(0, width(column)).join('');
}

function requiredAgentId(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw refuse.invalid('requiredAgentId must be a positive integer (an agent id) or null');
  return value;
}

/** The placement a registration records: named fields only, so that a target without any stays as older events read. */
function placementOnCreate(command: PlacementInput): Placement {
  const agent = requiredAgentId(command.requiredAgentId);
  const labels = checkLabels(command.requiredLabels ?? [], 'requiredLabels');
  return { ...(agent !== null ? { requiredAgentId: agent } : {}), ...(labels.length ? { requiredLabels: labels } : {}) };
}

const repositoryName = (identity: string) => identity.slice(identity.lastIndexOf('/') + 1);

/** The identity is stored (repositories.identity, narrower than the url): a url whose identity is longer is refused. */
function boundedIdentity(url: string): string {
  const identity = repositoryIdentity(url);
  const length = characters(identity);
  if (length > width('repositories.identity')) {
    throw refuse.invalid(`url names a repository whose identity (host and path, as compared) is ${grouped(length)} characters; at most ${grouped(width('repositories.identity'))}`);
  }
  return identity;
}

function refusal(command: TargetCommand): DomainError {
  if (command.type === 'RegisterRepository' || command.type === 'RegisterContainer') {
    return refuse.conflict(`target ${command.id} already exists`);
  }
  return refuse.notFound(`target ${command.id} does not exist`);
}

function registerRepository(command: RegisterRepository): TargetEvent[] {
  const url = validateRepositoryUrl(command.url);
  const identity = boundedIdentity(url);
  const branch = normaliseBranch(command.branch);
  const subPath = normaliseSubPath(command.subPath);
  checkCredentialTransport(url, command.credential);
  return [{
    type: 'RepositoryRegistered',
    data: {
      id: targetId(command.id), url, identity, branch, subPath, uniquenessKey: uniquenessKey(identity, branch, subPath),
      name: targetName(command.name, repositoryName(identity), 'repositories.name'), projectId: projectId(command.projectId),
      ...scheduleOnCreate(command), ...placementOnCreate(command), registeredAt: command.now.toISOString(), registeredBy: command.actor,
      ...(command.credential ? { credential: { id: command.credential.id, kind: command.credential.kind } } : {}),
    },
  }];
}

function registerContainer(command: RegisterContainer): TargetEvent[] {
  const image = validateImageReference(command.image);
  return [{
    type: 'ContainerImageRegistered',
    data: {
      id: targetId(command.id), image, name: targetName(command.name, image, 'containers.name'), projectId: projectId(command.projectId),
      ...scheduleOnCreate(command), ...placementOnCreate(command), registeredAt: command.now.toISOString(), registeredBy: command.actor,
    },
  }];
}

/** The fields of a repository after a PATCH, before comparing with what it held. */
function patchedRepository(target: RepositoryTarget, patch: TargetPatch): Omit<RepositoryTarget, 'kind' | 'id' | 'registeredAt'> {
  if (patch.image !== undefined) throw refuse.invalid('a repository has no image; url, branch and subPath describe it');
  const url = patch.url === undefined ? target.url : validateRepositoryUrl(patch.url);
  const identity = patch.url === undefined ? repositoryIdentity(url) : boundedIdentity(url);
  const branch = patch.branch === undefined ? target.branch : normaliseBranch(patch.branch);
  const subPath = patch.subPath === undefined ? target.subPath : normaliseSubPath(patch.subPath);
  // Checked on the pair after the change: a new URL must still suit the credential it keeps.
  const credential = patch.credential === undefined ? target.credential ?? null : patch.credential;
  checkCredentialTransport(url, credential);
  return {
    url, identity, branch, subPath, uniquenessKey: uniquenessKey(identity, branch, subPath), credential,
    name: patch.name === undefined ? target.name : targetName(patch.name, repositoryName(identity), 'repositories.name'),
    projectId: patch.projectId === undefined ? target.projectId : projectId(patch.projectId),
    ...scheduleOnUpdate(target, patch),
  };
}

function patchedContainer(target: ContainerTarget, patch: TargetPatch): Omit<ContainerTarget, 'kind' | 'id' | 'registeredAt'> {
  if (patch.url !== undefined || patch.branch !== undefined || patch.subPath !== undefined) {
    throw refuse.invalid('a container image has no url, branch or subPath; image describes it');
  }
  if (patch.credential !== undefined) throw refuse.invalid('a container image has no clone credential (sshKeyId, httpsTokenId)');
  const image = patch.image === undefined ? target.image : validateImageReference(patch.image);
  return {
    image,
    name: patch.name === undefined ? target.name : targetName(patch.name, image, 'containers.name'),
    projectId: patch.projectId === undefined ? target.projectId : projectId(patch.projectId),
    ...scheduleOnUpdate(target, patch),
  };
}

const CHANGEABLE: readonly (keyof TargetChanges)[] = [
  'name', 'projectId', 'scanManualOnly', 'scanIntervalMinutes', 'scanCron', 'url', 'identity', 'branch', 'subPath', 'image',
];

/** A PATCH's placement fields as changes: only what it names and what differs (labels compared as sorted lists). */
function placementChanges(target: Target, patch: PlacementInput): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (patch.requiredAgentId !== undefined) {
    const agent = requiredAgentId(patch.requiredAgentId);
    if (agent !== (target.requiredAgentId ?? null)) changes.requiredAgentId = agent;
  }
  if (patch.requiredLabels !== undefined) {
    const labels = checkLabels(patch.requiredLabels ?? [], 'requiredLabels');
    if (labels.join('\n') !== (target.requiredLabels ?? []).join('\n')) changes.requiredLabels = labels;
  }
  return changes;
}

/** An update that changes nothing records nothing (a repeated PATCH is idempotent). */
function updateTarget(command: UpdateTarget, target: Target): TargetEvent[] {
  const after: Record<string, unknown> = target.kind === 'repository' ? patchedRepository(target, command.changes) : patchedContainer(target, command.changes);
  const before = target as unknown as Record<string, unknown>;
  const changes: Record<string, unknown> = Object.fromEntries(CHANGEABLE.filter((field) => field in after && after[field] !== before[field]).map((field) => [field, after[field]]));
  Object.assign(changes, placementChanges(target, command.changes));
  // An object: compared by id and kind, not by reference.
  if ('credential' in after && !sameCredential(after.credential as CredentialRef | null, target.kind === 'repository' ? target.credential : null)) {
    changes.credential = after.credential;
  }
  if (Object.keys(changes).length === 0) return [];
  const keyMoved = target.kind === 'repository' && after.uniquenessKey !== target.uniquenessKey;
  return [{
    type: 'TargetUpdated',
    data: {
      id: target.id, kind: target.kind, changes,
      ...(keyMoved ? { uniquenessKey: { previous: (target as RepositoryTarget).uniquenessKey, current: after.uniquenessKey as string } } : {}),
      updatedAt: command.now.toISOString(), updatedBy: command.actor,
    },
  }];
}

function deleteTarget(command: DeleteTarget, target: Target): TargetEvent[] {
  return [{
    type: 'TargetDeleted',
    data: {
      id: target.id, kind: target.kind, uniquenessKey: target.kind === 'repository' ? target.uniquenessKey : null,
      deletedAt: command.now.toISOString(), deletedBy: command.actor,
    },
  }];
}

export function decideTarget(command: TargetCommand, state: TargetState): TargetEvent[] {
  if (!targetTransitions[state.status].includes(command.type)) throw refusal(command);
  switch (command.type) {
    case 'RegisterRepository':
      return registerRepository(command);
    case 'RegisterContainer':
      return registerContainer(command);
    case 'UpdateTarget':
      return updateTarget(command, (state as Extract<TargetState, { target: Target }>).target);
    case 'DeleteTarget':
      return deleteTarget(command, (state as Extract<TargetState, { target: Target }>).target);
    default:
      return assertNever(command);
  }
}

export const targetDecider: Decider<TargetCommand, TargetEvent, TargetState> = {
  initialState: initialTargetState,
  decide: decideTarget,
  evolve: evolveTarget,
};
