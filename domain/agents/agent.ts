import { checkLabels as checkSharedLabels } from '../shared/labels';
import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { SEALING_KEY_EFFECT } from './credential-state';

/**
 * The Agent decider (spec 1 §2.7, §3.3, §4.7), one stream per agent row (`agent-<id>`). An agent row
 * is an agent key: its id is the key's id, so every process using one key shares one row and one
 * limit (S1.4.7-19). Rows are created by the first hello.
 *
 *   Command            | new                 | registered
 *   Hello              | AgentRegistered     | AgentHelloChanged when version, mode or labels differ, else nothing
 *   SetMaxConcurrent   | 404                 | 1..16 (400 outside): AgentLimitSet, nothing when equal
 *   PinSigningKey      | 404                 | AgentSigningKeyPinned; an accepted sealing key is withdrawn (S1.3.3-05/06)
 *   RemoveSigningKey   | 404                 | AgentSigningKeyRemoved (withdraws the sealing key); nothing when none
 *   AnnounceSealingKey | 404                 | no signing key: 409; bad signature: 403; not newer than the newest accepted: 409; else AgentSealingKeyAccepted
 *   DeleteSealingKey   | 404                 | AgentSealingKeyWithdrawn; nothing when none
 *
 * Signatures are verified by the application (tweetnacl); the command says what it found.
 */

export type AgentMode = 'local' | 'delegated';
export const AGENT_MODES: readonly AgentMode[] = ['local', 'delegated'];
export const MIN_CONCURRENT = 1;
export const MAX_CONCURRENT = 16;
export { MAX_LABELS, MAX_LABEL_LENGTH } from '../shared/labels';
const ED25519_PUBLIC_BYTES = 32;
const X25519_PUBLIC_BYTES = 32;

export interface Hello {
  readonly type: 'Hello';
  readonly agentId: number;
  readonly accountId: number;
  readonly version: string;
  readonly mode: AgentMode;
  readonly labels: readonly string[];
  readonly now: Date;
}
export interface SetMaxConcurrent { readonly type: 'SetMaxConcurrent'; readonly maxConcurrent: number; readonly now: Date }
export interface PinSigningKey { readonly type: 'PinSigningKey'; readonly publicKey: string; readonly generated: boolean; readonly now: Date }
export interface RemoveSigningKey { readonly type: 'RemoveSigningKey'; readonly now: Date }
export interface AnnounceSealingKey {
  readonly type: 'AnnounceSealingKey';
  readonly publicKey: string;
  readonly createdAt: string;
  /** What the application found checking the signature against the pinned signing key. */
  readonly signature: 'valid' | 'invalid';
  readonly now: Date;
}
export interface DeleteSealingKey { readonly type: 'DeleteSealingKey'; readonly now: Date }

export type AgentCommand = Hello | SetMaxConcurrent | PinSigningKey | RemoveSigningKey | AnnounceSealingKey | DeleteSealingKey;
export type AgentCommandType = AgentCommand['type'];

export type AgentRegistered = DomainEvent<'AgentRegistered', {
  id: number; accountId: number; version: string; mode: AgentMode; labels: string[]; maxConcurrent: number; registeredAt: string;
}>;
export type AgentHelloChanged = DomainEvent<'AgentHelloChanged', { id: number; version: string; mode: AgentMode; labels: string[]; at: string }>;
export type AgentLimitSet = DomainEvent<'AgentLimitSet', { id: number; maxConcurrent: number; previous: number; at: string }>;
export type AgentSigningKeyPinned = DomainEvent<'AgentSigningKeyPinned', { id: number; publicKey: string; generated: boolean; sealingKeyWithdrawn: boolean; at: string }>;
export type AgentSigningKeyRemoved = DomainEvent<'AgentSigningKeyRemoved', { id: number; sealingKeyWithdrawn: boolean; at: string }>;
export type AgentSealingKeyAccepted = DomainEvent<'AgentSealingKeyAccepted', { id: number; publicKey: string; createdAt: string; at: string }>;
export type AgentSealingKeyWithdrawn = DomainEvent<'AgentSealingKeyWithdrawn', { id: number; at: string }>;
export type AgentEvent = AgentRegistered | AgentHelloChanged | AgentLimitSet | AgentSigningKeyPinned | AgentSigningKeyRemoved | AgentSealingKeyAccepted | AgentSealingKeyWithdrawn;
export const AGENT_EVENT_TYPES: readonly AgentEvent['type'][] = [
  'AgentRegistered', 'AgentHelloChanged', 'AgentLimitSet', 'AgentSigningKeyPinned', 'AgentSigningKeyRemoved', 'AgentSealingKeyAccepted', 'AgentSealingKeyWithdrawn',
];

export type AgentState =
  | { readonly status: 'new' }
  | {
    readonly status: 'registered';
    readonly id: number;
    readonly version: string;
    readonly mode: AgentMode;
    readonly labels: readonly string[];
    readonly maxConcurrent: number;
    readonly signingKey: string | null;
    /** The accepted sealing key, null when none or withdrawn. */
    readonly sealingKey: { readonly publicKey: string; readonly createdAt: string } | null;
    /** createdAt of the newest sealing key ever accepted: an announcement must be newer (S1.4.7-26). */
    readonly sealingFloor: string | null;
  };

export const AGENT_TRANSITIONS: Readonly<Record<AgentState['status'], readonly AgentCommandType[]>> = {
  new: ['Hello'],
  registered: ['Hello', 'SetMaxConcurrent', 'PinSigningKey', 'RemoveSigningKey', 'AnnounceSealingKey', 'DeleteSealingKey'],
};

type Registered = Extract<AgentState, { status: 'registered' }>;

/** A base64 text of exactly `bytes` bytes (canonical padding), or null. */
export function decodeKey(text: unknown, bytes: number): Buffer | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const raw = Buffer.from(text, 'base64');
  return raw.length === bytes && raw.toString('base64') === text ? raw : null;
}

/** An agent's labels: the shared grammar of domain/shared/labels.ts. */
export function checkLabels(labels: readonly string[]): string[] {
  return checkSharedLabels(labels, 'labels');
}

export function checkMaxConcurrent(n: unknown): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < MIN_CONCURRENT || n > MAX_CONCURRENT) {
    throw refuse.invalid(`max_concurrent is an integer from ${MIN_CONCURRENT} to ${MAX_CONCURRENT}.`);
  }
  return n;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function hello(c: Hello, s: AgentState): AgentEvent[] {
  if (!AGENT_MODES.includes(c.mode)) throw refuse.invalid('An agent\'s mode is local or delegated.');
  const labels = checkLabels(c.labels);
  const at = c.now.toISOString();
  if (s.status === 'new') {
    return [{ type: 'AgentRegistered', data: { id: c.agentId, accountId: c.accountId, version: c.version, mode: c.mode, labels, maxConcurrent: MIN_CONCURRENT, registeredAt: at } }];
  }
  if (s.version === c.version && s.mode === c.mode && sameList(s.labels, labels)) return [];
  return [{ type: 'AgentHelloChanged', data: { id: s.id, version: c.version, mode: c.mode, labels, at } }];
}

function withdraws(command: AgentCommandType, s: Registered): boolean {
  return SEALING_KEY_EFFECT[command] === 'withdraws' && s.sealingKey !== null;
}

function announce(c: AnnounceSealingKey, s: Registered): AgentEvent[] {
  if (!decodeKey(c.publicKey, X25519_PUBLIC_BYTES)) throw refuse.invalid('A sealing key is an X25519 public key: 32 bytes in base64.');
  const created = Date.parse(c.createdAt);
  if (!Number.isFinite(created) || new Date(created).toISOString() !== c.createdAt) throw refuse.invalid('createdAt is an ISO 8601 UTC instant (YYYY-MM-DDTHH:mm:ss.sssZ).');
  if (!s.signingKey) throw refuse.conflict('No signing key is pinned for this agent: a sealing key cannot be verified, credentials stay withheld.');
  if (c.signature !== 'valid') throw refuse.forbidden('The sealing key announcement is not signed by the pinned signing key.');
  if (s.sealingFloor !== null && created <= Date.parse(s.sealingFloor)) {
    throw refuse.conflict(`A sealing key created at ${s.sealingFloor} was accepted already; only a newer one replaces it.`);
  }
  return [{ type: 'AgentSealingKeyAccepted', data: { id: s.id, publicKey: c.publicKey, createdAt: c.createdAt, at: c.now.toISOString() } }];
}

export function decideAgent(c: AgentCommand, s: AgentState): AgentEvent[] {
  if (!AGENT_TRANSITIONS[s.status].includes(c.type)) throw refuse.notFound('No such agent: an agent row is created by its first hello.');
  if (c.type === 'Hello') return hello(c, s);
  const r = s as Registered;
  const at = c.now.toISOString();
  switch (c.type) {
    case 'SetMaxConcurrent': {
      const n = checkMaxConcurrent(c.maxConcurrent);
      return n === r.maxConcurrent ? [] : [{ type: 'AgentLimitSet', data: { id: r.id, maxConcurrent: n, previous: r.maxConcurrent, at } }];
    }
    case 'PinSigningKey':
      if (!decodeKey(c.publicKey, ED25519_PUBLIC_BYTES)) throw refuse.invalid('A signing key is an Ed25519 public key: 32 bytes in base64, or the word generate.');
      return [{ type: 'AgentSigningKeyPinned', data: { id: r.id, publicKey: c.publicKey, generated: c.generated, sealingKeyWithdrawn: withdraws(c.type, r), at } }];
    case 'RemoveSigningKey':
      return r.signingKey === null ? [] : [{ type: 'AgentSigningKeyRemoved', data: { id: r.id, sealingKeyWithdrawn: withdraws(c.type, r), at } }];
    case 'AnnounceSealingKey':
      return announce(c, r);
    case 'DeleteSealingKey':
      return r.sealingKey === null ? [] : [{ type: 'AgentSealingKeyWithdrawn', data: { id: r.id, at } }];
    default:
      return assertNever(c);
  }
}

export function evolveAgent(s: AgentState, e: AgentEvent): AgentState {
  if (e.type === 'AgentRegistered') {
    const d = e.data;
    return { status: 'registered', id: d.id, version: d.version, mode: d.mode, labels: d.labels, maxConcurrent: d.maxConcurrent, signingKey: null, sealingKey: null, sealingFloor: null };
  }
  if (s.status === 'new') return s;
  switch (e.type) {
    case 'AgentHelloChanged':
      return { ...s, version: e.data.version, mode: e.data.mode, labels: e.data.labels };
    case 'AgentLimitSet':
      return { ...s, maxConcurrent: e.data.maxConcurrent };
    case 'AgentSigningKeyPinned':
      return { ...s, signingKey: e.data.publicKey, sealingKey: null };
    case 'AgentSigningKeyRemoved':
      return { ...s, signingKey: null, sealingKey: null };
    case 'AgentSealingKeyAccepted':
      return { ...s, sealingKey: { publicKey: e.data.publicKey, createdAt: e.data.createdAt }, sealingFloor: e.data.createdAt };
    case 'AgentSealingKeyWithdrawn':
      return { ...s, sealingKey: null };
    default:
      return assertNever(e);
  }
}

export const agentDecider: Decider<AgentCommand, AgentEvent, AgentState> = {
  initialState: () => ({ status: 'new' }),
  decide: decideAgent,
  evolve: evolveAgent,
};
