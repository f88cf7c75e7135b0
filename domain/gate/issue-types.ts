/**
 * Issue types the gate and the scorecards need to tell apart (spec 1 §2.3: "includes imported, plugin,
 * sast; other values exist"). Other contexts may add values; only these two change a rule here.
 */
export type IssueType = 'vulnerability' | 'secret' | 'iac' | 'sast' | 'imported' | 'plugin' | (string & {});

/**
 * Imported (SARIF from a declared source) and plugin issues are outside the scanners' own findings:
 * they fail a gate only with include_plugins and never count in the security figures (S1.2.3-16, -17).
 */
export function isImportedOrPlugin(type: IssueType): boolean {
  return type === 'imported' || type === 'plugin';
}
