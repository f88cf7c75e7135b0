import { TargetKind } from '../shared/target-kind';

/** The detected-language vocabulary of spec 1 §2.1, sorted; nothing outside it is ever shown. */
export const DETECTED_LANGUAGES = [
  'apex', 'bash', 'c', 'clojure', 'csharp', 'dockerfile', 'elixir', 'go', 'html', 'java', 'javascript', 'json',
  'kotlin', 'ocaml', 'php', 'python', 'ruby', 'rust', 'scala', 'solidity', 'swift', 'terraform', 'typescript', 'yaml',
] as const;

export type DetectedLanguage = (typeof DETECTED_LANGUAGES)[number];

const VOCABULARY: ReadonlySet<string> = new Set(DETECTED_LANGUAGES);

/** Names detectors commonly print for a vocabulary language, so a scanner's spelling does not lose it. */
const ALIASES: Readonly<Record<string, DetectedLanguage>> = {
  'c#': 'csharp', cs: 'csharp', shell: 'bash', sh: 'bash', hcl: 'terraform', tf: 'terraform', js: 'javascript',
  ts: 'typescript', py: 'python', rb: 'ruby', kt: 'kotlin', yml: 'yaml', docker: 'dockerfile', golang: 'go', rs: 'rust',
};

export function isDetectedLanguage(name: string): name is DetectedLanguage {
  return VOCABULARY.has(name);
}

/**
 * detectedLanguages as stored and shown: sorted, unique, only vocabulary words (case and common aliases
 * folded, anything else dropped). null means unknown: no list (no completed scan, or an older scan that
 * counted nothing) or a count that stopped at its bound, since a partial list would claim too little.
 * [] stays [] (scanned, no language found).
 */
export function normaliseDetectedLanguages(list: readonly string[] | null | undefined, bounded: boolean): DetectedLanguage[] | null {
  if (list === null || list === undefined || bounded) return null;
  const found = new Set<DetectedLanguage>();
  for (const raw of list) {
    const name = String(raw).trim().toLowerCase();
    const language = isDetectedLanguage(name) ? name : ALIASES[name];
    if (language) found.add(language);
  }
  return DETECTED_LANGUAGES.filter((language) => found.has(language));
}

/** What a completed scan records: an image scan records no language (null), a repository scan its normalised list. */
export function languagesRecordedByScan(kind: TargetKind, list: readonly string[] | null | undefined, bounded: boolean): DetectedLanguage[] | null {
  return kind === 'container' ? null : normaliseDetectedLanguages(list, bounded);
}

export interface RepositoryLanguages {
  readonly id: number;
  readonly detectedLanguages: readonly DetectedLanguage[] | null;
}

export interface ProjectLanguages {
  readonly detectedLanguages: DetectedLanguage[];
  readonly languagesUnknownFor: number[];
}

/**
 * GET /solutions per project, over the repositories the caller sees (the caller filters first):
 * the sorted union of known languages, and the ids (ascending) of repositories whose languages are unknown.
 */
export function projectLanguages(repositories: readonly RepositoryLanguages[]): ProjectLanguages {
  const found = new Set<DetectedLanguage>();
  const unknown: number[] = [];
  for (const repository of repositories) {
    if (repository.detectedLanguages === null) unknown.push(repository.id);
    else repository.detectedLanguages.forEach((language) => found.add(language));
  }
  return {
    detectedLanguages: DETECTED_LANGUAGES.filter((language) => found.has(language)),
    languagesUnknownFor: unknown.sort((a, b) => a - b),
  };
}
