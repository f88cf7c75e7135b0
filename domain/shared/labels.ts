import { refuse } from './decider';

/**
 * Labels: what an executor answers to (an agent's VIGIL_AGENT_LABELS, the built-in worker's
 * VIGIL_WORKER_LABELS) and what a target requires of the executor that claims its scans. One grammar
 * for both, so that a required label can always be carried: 1 to 64 letters, digits and . _ : / -
 * starting with a letter or digit (no spaces, no control characters), at most 32 per list; a list is
 * kept sorted without repeats.
 */
export const MAX_LABELS = 32;
export const MAX_LABEL_LENGTH = 64;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

export function checkLabels(labels: unknown, field = 'labels'): string[] {
  if (!Array.isArray(labels) || labels.length > MAX_LABELS) throw refuse.invalid(`${field} is a list of at most ${MAX_LABELS} labels.`);
  for (const l of labels) {
    if (typeof l !== 'string' || l.length > MAX_LABEL_LENGTH || !LABEL.test(l)) {
      throw refuse.invalid(`A label (${field}) is 1 to ${MAX_LABEL_LENGTH} letters, digits and . _ : / - (starting with a letter or digit).`);
    }
  }
  return [...new Set(labels as string[])].sort();
}
