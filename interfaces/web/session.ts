/**
 * The signed-in person: the session token the API answered at sign-in (kept in sessionStorage, so
 * it lasts as long as the tab and no cookie is involved) and the account GET /me describes.
 */
export type Role = 'administrator' | 'ciso' | 'security_lead' | 'platform_governor' | 'auditor' | 'writer' | 'reader';

export interface Me { id: number; username: string; displayName: string; roles: Role[] }

interface State { token: string | null; me: Me | null; ended: boolean }

const KEY = 'vigil.session';
const listeners = new Set<() => void>();
let state: State = { token: sessionStorage.getItem(KEY), me: null, ended: false };

function set(next: Partial<State>): void {
  state = { ...state, ...next };
  if (state.token) sessionStorage.setItem(KEY, state.token); else sessionStorage.removeItem(KEY);
  listeners.forEach((l) => l());
}

export const session = {
  token: () => state.token,
  me: () => state.me,
  ended: () => state.ended,
  signedIn(token: string, me: Me) { set({ token, me, ended: false }); },
  known(me: Me) { set({ me }); },
  /** The API answered 401: the session ended (expired, signed out elsewhere, account deactivated). */
  expire() { if (state.token) set({ token: null, me: null, ended: true }); },
  signedOut() { set({ token: null, me: null, ended: false }); },
  subscribe(listener: () => void): () => void { listeners.add(listener); return () => listeners.delete(listener); },
};
