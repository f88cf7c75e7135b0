import { ImportRefusal } from '../../domain/imports/import-refusal';
import { width } from '../../domain/shared/column-widths';
import { textProblem } from '../../domain/shared/text';
import { HttpRefusal } from './refusal';
import { splitByJsonBytes } from '../shared/json-parts';

/**
 * What the coverage, test-report and build-SBOM imports share (spec 1 §4.3): the commit and
 * branch the pipeline states, the declared content type, a parser refusal turned into its HTTP
 * answer, and the split of long lists over several events (an event stays under the event
 * store's size limit, MAX_EVENT_BYTES).
 */

export interface StatedBuild {
  /** As stated, case kept; verified against nothing (S1.4.3-44). */
  commit: string | null;
  branch: string | null;
}

const MAX_COMMIT = width('coverage_imports.commit');
const MAX_BRANCH = width('coverage_imports.branch');

/** commit: hexadecimal, 1 to 64 digits (a SHA-1 or SHA-256 object name, or a prefix); branch: 1 to 255 characters. */
export function statedBuild(query: Record<string, unknown>): StatedBuild {
  const commit = single(query.commit, 'commit');
  const branch = single(query.branch, 'branch');
  if (commit !== null && !/^[0-9a-fA-F]+$/.test(commit)) {
    throw new HttpRefusal(400, `The commit "${clip(commit)}" is not hexadecimal; state the commit's object name (for example its 40-digit SHA-1), or leave commit out.`);
  }
  if (commit !== null && commit.length > MAX_COMMIT) throw new HttpRefusal(400, `The commit has ${commit.length} digits; an object name has at most ${MAX_COMMIT}.`);
  const problem = branch === null ? null : textProblem('The branch', branch, { max: MAX_BRANCH, kind: 'line' });
  if (problem) throw new HttpRefusal(400, `${problem}.`);
  return { commit, branch };
}

function single(value: unknown, name: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') throw new HttpRefusal(400, `Give ${name} once.`);
  if (value === '') throw new HttpRefusal(400, `The ${name} is empty; leave it out when the pipeline does not know it.`);
  return value;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** The media type of a Content-Type header, lowercase, without parameters ('' when absent). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Runs a parser; its refusal becomes the route's answer (400, or 413 for a size guard). */
export async function parsed<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ImportRefusal) throw new HttpRefusal(error.status, error.message);
    throw error;
  }
}

/** Bytes of list items per event: well under the event store's 900 KB per event. */
export const PART_BYTES = 512 * 1024;

/** Consecutive slices of `items` whose JSON stays within `budget` bytes each (at least one slice, possibly empty). */
export function parts<T>(items: readonly T[], budget = PART_BYTES): T[][] {
  const slices = splitByJsonBytes(items, budget);
  return slices.length > 0 ? slices : [[]];
}
