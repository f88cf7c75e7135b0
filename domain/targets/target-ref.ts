import type { TargetKind } from '../shared/target-kind';
/** Repositories and container images are the two kinds of target (spec 1 §2.1). */

/**
 * Names one target across both kinds. The kind travels with the id because /repositories/{id} and
 * /containers/{id} are separate collections: nothing here assumes one numbering for both.
 */
export type TargetRef = `${TargetKind}:${number}`;

export function targetRef(kind: TargetKind, id: number): TargetRef {
  return `${kind}:${id}`;
}
