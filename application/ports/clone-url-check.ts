/**
 * The clone guard as the targets context sees it (spec 1 §8.3 VIGIL_GIT_ALLOWED_HOSTS, "checked on
 * entry and before each scan, after DNS resolution"). infrastructure/scanning/clone-guard.ts
 * implements it; the executor asks it again before each clone.
 */
export type CloneUrlVerdict =
  | { allowed: true }
  | { allowed: false; permanent: boolean; reason: string };

export interface CloneUrlCheck {
  check(url: string): Promise<CloneUrlVerdict>;
}
