/**
 * The widths (in characters) of the read-model columns that take text a request or an imported
 * document supplies, named once. A request schema, a parser or a decider that bounds such a text
 * reads its limit here, so that a value the API accepts always fits the column its projection
 * writes it to: a longer one would be appended as an event and then fail the projection on every
 * attempt, wedging the installation (issue #17).
 *
 * Here in domain/shared (pure data) so that every layer may read it, deciders included. The
 * shipped migrations keep their literals (a shipped migration is never edited); a new migration
 * that adds or widens such a column takes its width from here. spec/migrations/column-widths.spec.ts
 * checks every entry against the migrated schema on each engine.
 */
export const COLUMN_WIDTHS = {
  'accounts.username': 100,
  'accounts.display_name': 200,
  'api_keys.name': 200,
  'api_keys.expires_at': 30,
  'teams.name': 200,
  'settings.name': 100,
  'solutions.name': 200,
  'projects.name': 200,
  'repositories.url': 2048,
  'repositories.identity': 1024,
  'repositories.branch': 255,
  'repositories.sub_path': 1024,
  'repositories.name': 255,
  'repositories.scan_cron': 255,
  'containers.image': 1024,
  'containers.name': 255,
  'sarif_sources.slug': 100,
  'sarif_sources.name': 200,
  'credentials.name': 200,
  'credentials.host': 300,
  'credentials.username': 255,
  'credentials.public_key_type': 100,
  'issues.tool_key': 255,
  'issues.tool_name': 255,
  'issues.tool_version': 255,
  'issues.rule_id': 512,
  'issues.path': 4096, // widened by v014 (PATH_MAX)
  'issues.identifier': 255,
  'issues.package_name': 512,
  'issues.package_version': 255,
  'issue_owasp_categories.category': 8, // the normal form A10:2021 (domain/backlog/owasp.ts)
  'coverage_imports.tool_version': 255,
  'coverage_imports.commit': 64,
  'coverage_imports.branch': 255,
} as const;

export type WidthColumn = keyof typeof COLUMN_WIDTHS;

/** The width of one column, e.g. width('teams.name') is 200. */
export function width(column: WidthColumn): number {
  return COLUMN_WIDTHS[column];
}
