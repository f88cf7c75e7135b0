/**
 * The signed-in person: the session token the API answered at sign-in (kept in sessionStorage, so
 * it lasts as long as the tab and no cookie is involved) and the account GET /me describes.
 *
 * Each token has an AbortController: when the page lets go of a session (sign-out, or a 401),
 * the calls still on their way with it are cancelled, so that none comes back later as a refusal
 * of a session the person already left.
 */
export type Role = 'administrator' | 'ciso' | 'security_lead' | 'platform_governor' | 'auditor' | 'writer' | 'reader';

export interface Me { id: number; username: string; displayName: string; roles: Role[] }

interface State { token: string | null; me: Me | null; ended: boolean }

const KEY = 'vigil.session';
const listeners = new Set<() => void>();
let state: State = { token: sessionStorage.getItem(KEY), me: null, ended: false };
let calls = new AbortController();

function set(next: Partial<State>): void {
  const before = state.token;
  state = { ...state, ...next };
  if (state.token) sessionStorage.setItem(KEY, state.token); else sessionStorage.removeItem(KEY);
  if (state.token !== before) { calls.abort(); calls = new AbortController(); }
  listeners.forEach((l) => l());
}

export const session = {
  token: () => state.token,
  me: () => state.me,
  ended: () => state.ended,
  /** Cancels the calls made with the current token once the page lets go of it. */
  signal: () => calls.signal,
  signedIn(token: string, me: Me) { set({ token, me, ended: false }); },
  known(me: Me) { set({ me }); },
  /** The API answered 401 to `token`: that session ended (expired, signed out elsewhere, account deactivated). */
  expire(token: string) { if (state.token && state.token === token) set({ token: null, me: null, ended: true }); },
  /**
   * Forgets the session at once, before the server is told: a reload or a late answer while the
   * sign-out is on its way must not bring back a session the server is ending.
   */
  signedOut() { set({ token: null, me: null, ended: false }); },
  subscribe(listener: () => void): () => void { listeners.add(listener); return () => listeners.delete(listener); },
};
