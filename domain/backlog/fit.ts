import { width } from '../shared/column-widths';
import { characters, fitted } from '../shared/text';
import type { Finding } from './issue';

/**
 * A scanner's finding as the `issues` table can hold it (issue #17). Scanner output is not an upload:
 * nobody can be told to fix it, so nothing is refused; each identifier is cut to its column with its
 * control characters made spaces, the title loses the control characters PostgreSQL or a reader
 * would choke on. An identifier (what the KEV and EPSS feeds join on) too long for its column is
 * none. Imports never need this: their parsers refuse such documents with a 400.
 */
export function fitFinding<F extends Pick<Finding, 'ruleId' | 'path' | 'title' | 'identifier' | 'packageName' | 'packageVersion' | 'toolName' | 'toolVersion'>>(f: F): F {
  const identifier = f.identifier === null ? null : fitted(f.identifier, Number.MAX_SAFE_INTEGER);
  return {
    ...f,
    ruleId: fitted(f.ruleId, width('issues.rule_id')),
    path: fitted(f.path, width('issues.path')),
    title: fitted(f.title, Number.MAX_SAFE_INTEGER, 'free'),
    identifier: identifier !== null && characters(identifier) <= width('issues.identifier') ? identifier : null,
    packageName: f.packageName === null ? null : fitted(f.packageName, width('issues.package_name')),
    packageVersion: f.packageVersion === null ? null : fitted(f.packageVersion, width('issues.package_version')),
    ...(f.toolName === undefined ? {} : { toolName: fitted(f.toolName, width('issues.tool_name')) }),
    ...(f.toolVersion === undefined || f.toolVersion === null ? {} : { toolVersion: fitted(f.toolVersion, width('issues.tool_version')) }),
  };
}
