import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DetectedLanguage, normaliseDetectedLanguages } from '../../domain/targets/languages';

/**
 * Languages of a clone (spec 1 §2.1 detectedLanguages), from file names and extensions, in the
 * §2.1 vocabulary only. The walk visits at most `maxFiles` files (default 100,000) and never
 * follows symbolic links nor enters .git; when files remain past the bound, `bounded` is true and
 * the list is partial (the scan then records languages as unknown, null).
 */
export const DEFAULT_LANGUAGE_FILE_BOUND = 100_000;

const BY_EXTENSION: Readonly<Record<string, DetectedLanguage>> = {
  cls: 'apex', trigger: 'apex',
  sh: 'bash', bash: 'bash',
  c: 'c', h: 'c',
  clj: 'clojure', cljs: 'clojure', cljc: 'clojure', edn: 'clojure',
  cs: 'csharp',
  dockerfile: 'dockerfile',
  ex: 'elixir', exs: 'elixir',
  go: 'go',
  html: 'html', htm: 'html',
  java: 'java',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  json: 'json',
  kt: 'kotlin', kts: 'kotlin',
  ml: 'ocaml', mli: 'ocaml',
  php: 'php',
  py: 'python', pyi: 'python',
  rb: 'ruby',
  rs: 'rust',
  scala: 'scala', sc: 'scala',
  sol: 'solidity',
  swift: 'swift',
  tf: 'terraform', tfvars: 'terraform',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  yml: 'yaml', yaml: 'yaml',
};

const BY_NAME: Readonly<Record<string, DetectedLanguage>> = {
  dockerfile: 'dockerfile', containerfile: 'dockerfile', gemfile: 'ruby', rakefile: 'ruby',
};

export function languageOfFile(name: string): DetectedLanguage | undefined {
  const lower = name.toLowerCase();
  if (BY_NAME[lower]) return BY_NAME[lower];
  if (lower.startsWith('dockerfile.') || lower.endsWith('.dockerfile')) return 'dockerfile';
  if (lower.endsWith('.d.ts')) return 'typescript';
  const dot = lower.lastIndexOf('.');
  return dot > 0 ? BY_EXTENSION[lower.slice(dot + 1)] : undefined;
}

export interface LanguageCount {
  languages: DetectedLanguage[];
  bounded: boolean;
}

export async function detectLanguages(root: string, maxFiles = DEFAULT_LANGUAGE_FILE_BOUND): Promise<LanguageCount> {
  const found = new Set<string>();
  const pending = [root];
  let files = 0;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (entry.name !== '.git') pending.push(path.join(dir, entry.name));
      } else if (entry.isFile()) {
        if (files >= maxFiles) return { languages: normaliseDetectedLanguages([...found], false) ?? [], bounded: true };
        files++;
        const language = languageOfFile(entry.name);
        if (language) found.add(language);
      }
    }
  }
  return { languages: normaliseDetectedLanguages([...found], false) ?? [], bounded: false };
}
