import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import type { PublicKeyInfo } from './key-material';

/**
 * A stored clone credential (issue #4 "Cloning"), one stream per credential (`credential-<id>`): an
 * SSH key with the host keys it pins, or an HTTPS token bound to its host. Events carry only sealed
 * material (EVENT-SOURCING trap 6): the secret is sealed under ENCRYPTION_KEY with this stream's
 * name as associated data before the command is built, so no plaintext ever reaches the decider.
 *
 * The stream also keeps which repositories name the credential (Attach/Detach, appended in the
 * commit of the repository's own event), so "remove only when unused" is decided on one stream
 * with the revision read (trap 4) instead of on a read model that may lag.
 *
 *   state    Save       Replace    Remove                 Attach                Detach
 *   none     → active   404        404                    400 unknown           (nothing)
 *   active   409        → active   → removed, 409 in use  → attached / nothing  → detached / nothing
 *   removed  409        404        404                    400 unknown           (nothing)
 *
 * Every change of the credential itself signals VGL-SEC-019 "stored credential" (spec 2 §6).
 */

export type CredentialKind = 'ssh_key' | 'https_token';
export type CredentialStatus = 'none' | 'active' | 'removed';

/** AES-256-GCM output (application/ports/secret-box.ts); base64 fields, the key named by its id. */
export interface SealedSecret {
  readonly alg: 'A256GCM';
  /** Which key sealed it: first 8 bytes of the key's SHA-256, hex. */
  readonly kid: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

/** What an SSH key credential shows besides its sealed private key. */
export interface SshKeyFacts {
  readonly publicKey: PublicKeyInfo;
  /** known_hosts lines pinned for it (public host keys, not secret). */
  readonly knownHosts: string;
  readonly hosts: readonly string[];
}

/** What an HTTPS token credential shows besides its sealed token. */
export interface HttpsTokenFacts {
  /** host or host:port (443 omitted), lower case. */
  readonly host: string;
  readonly username: string;
}

export const STORED_CREDENTIAL_SIEM = { signature: 'VGL-SEC-019', name: 'Security-relevant setting changed', severity: 6, subject: 'stored credential' } as const;
type Siem = typeof STORED_CREDENTIAL_SIEM;

export interface CredentialFacts {
  readonly name: string;
  readonly ssh: SshKeyFacts | null;
  readonly https: HttpsTokenFacts | null;
  readonly sealed: SealedSecret;
}

export interface CredentialSavedData extends CredentialFacts { readonly id: number; readonly kind: CredentialKind; readonly savedAt: string; readonly savedBy: number | null; readonly siem: Siem }
export interface CredentialReplacedData extends CredentialFacts { readonly id: number; readonly kind: CredentialKind; readonly replacedAt: string; readonly replacedBy: number | null; readonly siem: Siem }
export interface CredentialRemovedData { readonly id: number; readonly kind: CredentialKind; readonly removedAt: string; readonly removedBy: number | null; readonly siem: Siem }
export interface CredentialUseData { readonly id: number; readonly repositoryId: number; readonly at: string }

export type CredentialEvent =
  | DomainEvent<'CredentialSaved', CredentialSavedData>
  | DomainEvent<'CredentialReplaced', CredentialReplacedData>
  | DomainEvent<'CredentialRemoved', CredentialRemovedData>
  | DomainEvent<'CredentialAttached', CredentialUseData>
  | DomainEvent<'CredentialDetached', CredentialUseData>;

interface Gesture { readonly actor: number | null; readonly now: Date }

export interface SaveCredential extends Gesture {
  readonly type: 'SaveCredential';
  readonly id: number;
  readonly kind: CredentialKind;
  readonly name: string;
  readonly ssh?: SshKeyFacts;
  readonly https?: HttpsTokenFacts;
  readonly sealed: SealedSecret;
}

/**
 * PUT: a new secret (always); name, pinned host keys or user name may change with it, and are kept
 * when not given. The host of a token never changes: repositories were checked against it (make
 * another credential for another host).
 */
export interface ReplaceCredential extends Gesture {
  readonly type: 'ReplaceCredential';
  readonly name?: string;
  /** SSH keys: the new key's public half (required with a new private key). */
  readonly publicKey?: PublicKeyInfo;
  /** SSH keys: new pinned host keys. */
  readonly pinned?: { readonly knownHosts: string; readonly hosts: readonly string[] };
  /** HTTPS tokens: a new user name. */
  readonly username?: string;
  readonly sealed: SealedSecret;
}

export interface RemoveCredential extends Gesture { readonly type: 'RemoveCredential' }

/** A repository names the credential: the kind the request's field says, and the URL's transport and host. */
export interface AttachCredential extends Gesture {
  readonly type: 'AttachCredential';
  readonly id: number;
  readonly repositoryId: number;
  readonly expectedKind: CredentialKind;
  /** host or host:port (443 omitted for https) of the repository URL, lower case. */
  readonly urlHost: string;
}

export interface DetachCredential extends Gesture { readonly type: 'DetachCredential'; readonly repositoryId: number }

export type CredentialCommand = SaveCredential | ReplaceCredential | RemoveCredential | AttachCredential | DetachCredential;
export type CredentialCommandType = CredentialCommand['type'];

export type CredentialState =
  | { readonly status: 'none' }
  | {
    readonly status: 'active' | 'removed'; readonly id: number; readonly kind: CredentialKind; readonly name: string;
    readonly ssh: SshKeyFacts | null; readonly https: HttpsTokenFacts | null;
    /** Repositories naming it, in the order they were attached. */
    readonly usedBy: readonly number[];
  };

export const credentialTransitions: Readonly<Record<CredentialStatus, readonly CredentialCommandType[]>> = {
  none: ['SaveCredential', 'DetachCredential'],
  active: ['ReplaceCredential', 'RemoveCredential', 'AttachCredential', 'DetachCredential'],
  removed: ['DetachCredential'],
};

export const KIND_NOUN: Record<CredentialKind, string> = { ssh_key: 'an SSH key', https_token: 'an HTTPS token' };
export const KIND_FIELD: Record<CredentialKind, 'sshKeyId' | 'httpsTokenId'> = { ssh_key: 'sshKeyId', https_token: 'httpsTokenId' };

function credentialName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (!name || name.length > 200) throw refuse.invalid('name has 1 to 200 characters.');
  return name;
}

function checkFacts(kind: CredentialKind, ssh: SshKeyFacts | undefined, https: HttpsTokenFacts | undefined): void {
  if (kind === 'ssh_key' ? !ssh || https : !https || ssh) throw new Error(`a ${kind} credential needs its own facts only`);
}

function refused(command: CredentialCommand, state: CredentialState): Error {
  if (command.type === 'SaveCredential') return refuse.conflict(`Credential ${command.id} already exists.`);
  // Naming an unknown or removed credential on a repository is a bad field of that request: 400, not 404.
  if (command.type === 'AttachCredential') return refuse.invalid(`No stored credential ${command.id}: name one listed by GET /credentials.`);
  return refuse.notFound(state.status === 'none' ? 'No such stored credential.' : `Stored credential ${state.id} was removed.`);
}

function attach(command: AttachCredential, state: Exclude<CredentialState, { status: 'none' }>): CredentialEvent[] {
  if (state.kind !== command.expectedKind) {
    throw refuse.invalid(`Credential ${state.id} is ${KIND_NOUN[state.kind]}, not ${KIND_NOUN[command.expectedKind]}: name it as ${KIND_FIELD[state.kind]}.`);
  }
  // A token is bound to its host: it is never offered to another server, whatever the URL says.
  if (state.https && state.https.host !== command.urlHost) {
    throw refuse.invalid(`Credential ${state.id} is an HTTPS token bound to ${state.https.host}; the repository URL names ${command.urlHost}.`);
  }
  if (state.usedBy.includes(command.repositoryId)) return [];
  return [{ type: 'CredentialAttached', data: { id: state.id, repositoryId: command.repositoryId, at: command.now.toISOString() } }];
}

function replace(command: ReplaceCredential, state: Exclude<CredentialState, { status: 'none' }>): CredentialEvent[] {
  if (state.kind === 'https_token' && (command.publicKey || command.pinned)) throw refuse.invalid(`Credential ${state.id} is an HTTPS token: give token (and username), not privateKey or knownHosts.`);
  if (state.kind === 'ssh_key' && command.username !== undefined) throw refuse.invalid(`Credential ${state.id} is an SSH key: give privateKey (and knownHosts), not token or username.`);
  if (state.kind === 'ssh_key' && !command.publicKey) throw new Error('a new SSH key comes with its public half');
  const ssh = state.ssh && command.publicKey
    ? { publicKey: command.publicKey, knownHosts: command.pinned?.knownHosts ?? state.ssh.knownHosts, hosts: command.pinned?.hosts ?? state.ssh.hosts }
    : null;
  const https = state.https ? { ...state.https, username: command.username ?? state.https.username } : null;
  return [{
    type: 'CredentialReplaced',
    data: {
      id: state.id, kind: state.kind, name: command.name === undefined ? state.name : credentialName(command.name), ssh, https, sealed: command.sealed,
      replacedAt: command.now.toISOString(), replacedBy: command.actor, siem: STORED_CREDENTIAL_SIEM,
    },
  }];
}

export function decideCredential(command: CredentialCommand, state: CredentialState): CredentialEvent[] {
  if (!credentialTransitions[state.status].includes(command.type)) throw refused(command, state);
  if (command.type === 'SaveCredential') {
    checkFacts(command.kind, command.ssh, command.https);
    return [{
      type: 'CredentialSaved',
      data: {
        id: command.id, kind: command.kind, name: credentialName(command.name), ssh: command.ssh ?? null, https: command.https ?? null, sealed: command.sealed,
        savedAt: command.now.toISOString(), savedBy: command.actor, siem: STORED_CREDENTIAL_SIEM,
      },
    }];
  }
  if (state.status === 'none') return []; // Detach of nothing
  switch (command.type) {
    case 'ReplaceCredential':
      return replace(command, state);
    case 'RemoveCredential':
      if (state.usedBy.length) {
        throw refuse.conflict(`Credential ${state.id} is used by repositories ${state.usedBy.join(', ')}; detach it from them first.`, undefined, { repositoryIds: [...state.usedBy] });
      }
      return [{ type: 'CredentialRemoved', data: { id: state.id, kind: state.kind, removedAt: command.now.toISOString(), removedBy: command.actor, siem: STORED_CREDENTIAL_SIEM } }];
    case 'AttachCredential':
      return attach(command, state as Exclude<CredentialState, { status: 'none' }>);
    case 'DetachCredential':
      return state.usedBy.includes(command.repositoryId)
        ? [{ type: 'CredentialDetached', data: { id: state.id, repositoryId: command.repositoryId, at: command.now.toISOString() } }]
        : [];
    default:
      return assertNever(command);
  }
}

export function evolveCredential(state: CredentialState, event: CredentialEvent): CredentialState {
  switch (event.type) {
    case 'CredentialSaved':
      return { status: 'active', id: event.data.id, kind: event.data.kind, name: event.data.name, ssh: event.data.ssh, https: event.data.https, usedBy: [] };
    case 'CredentialReplaced':
      return state.status === 'none' ? state : { ...state, name: event.data.name, ssh: event.data.ssh, https: event.data.https };
    case 'CredentialRemoved':
      return state.status === 'none' ? state : { ...state, status: 'removed' };
    case 'CredentialAttached':
      return state.status === 'none' ? state : { ...state, usedBy: [...state.usedBy, event.data.repositoryId] };
    case 'CredentialDetached':
      return state.status === 'none' ? state : { ...state, usedBy: state.usedBy.filter((r) => r !== event.data.repositoryId) };
    default:
      return assertNever(event);
  }
}

export const credentialDecider: Decider<CredentialCommand, CredentialEvent, CredentialState> = {
  initialState: () => ({ status: 'none' }),
  decide: decideCredential,
  evolve: evolveCredential,
};

/** The sealed secret as the stream holds it now (the newest Saved or Replaced); null when none or removed. */
export function currentSecret(events: readonly CredentialEvent[]): { kind: CredentialKind; name: string; facts: CredentialFacts } | null {
  let current: { kind: CredentialKind; name: string; facts: CredentialFacts } | null = null;
  for (const e of events) {
    if (e.type === 'CredentialSaved' || e.type === 'CredentialReplaced') current = { kind: e.data.kind, name: e.data.name, facts: e.data };
    if (e.type === 'CredentialRemoved') current = null;
  }
  return current;
}
