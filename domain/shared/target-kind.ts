/** The two kinds of target Vigil scans and keeps a backlog for (spec 1 §2.1): declared once, used by every layer. */
export type TargetKind = 'repository' | 'container';

export const TARGET_KINDS: readonly TargetKind[] = ['repository', 'container'];

/** How each kind of target is named in messages. */
export const TARGET_NOUN: Readonly<Record<TargetKind, string>> = { repository: 'repository', container: 'container image' };
