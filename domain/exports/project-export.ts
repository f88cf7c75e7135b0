import type { SbomComponent } from './cyclonedx-sbom';
import { deterministicUuid, type DocumentContext, type ExportIssue, type ExportTarget } from './model';
import { vexSituation } from './vex-reading';

/** vigil-project-export (spec 2 §2.6, §9): major 1, this release writes 1.1 (inventory components gain `sources`). */
export const PROJECT_EXPORT_SCHEMA = 'vigil-project-export';
export const PROJECT_EXPORT_MAJOR = 1;
export const PROJECT_EXPORT_VERSION = '1.1';

/** One component of a target's inventory in the export, with who saw it (1.1). */
export interface ProjectInventoryEntry extends SbomComponent {
  targetKind: string;
  targetId: number;
}

const SOURCES: Record<SbomComponent['source'], string[]> = { build: ['build'], scanner: ['scanner'], both: ['build', 'scanner'] };

/**
 * The project export: the project, its targets, their issues with triage and VEX reading, their
 * inventory. Deterministic: rows sorted, the id derived from the project and the instant.
 */
export function* projectExport(
  ctx: DocumentContext,
  project: { id: number; name: string; solution: { id: number; name: string } | null },
  targets: readonly ExportTarget[],
  issues: readonly ExportIssue[],
  inventory: readonly ProjectInventoryEntry[],
): Generator<string> {
  yield JSON.stringify({
    schema: PROJECT_EXPORT_SCHEMA, version: PROJECT_EXPORT_VERSION, id: deterministicUuid(`${PROJECT_EXPORT_SCHEMA}:${project.id}:${ctx.timestamp}`),
    asOf: ctx.timestamp, product: { name: ctx.brand, version: ctx.version }, project,
    targets: [...targets].sort((a, b) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1))
      .map((t) => ({ kind: t.kind, id: t.id, name: t.name, locator: t.locator, branch: t.branch })),
  }).slice(0, -1);
  yield ',"issues":[';
  let first = true;
  for (const i of [...issues].sort((a, b) => a.id - b.id)) {
    yield (first ? '' : ',') + JSON.stringify({
      id: i.id, targetKind: i.targetKind, targetId: i.targetId, type: i.type, tool: i.toolName, ruleId: i.ruleId, path: i.path, line: i.line, severity: i.severity,
      title: i.title, identifier: i.identifier, package: i.packageName, packageVersion: i.packageVersion, fixable: i.fixable, status: i.open ? 'open' : 'resolved',
      triageStatus: i.triageStatus, justification: i.justification, reviewDate: i.reviewDate, firstSeenAt: i.firstSeenAt, vexSituation: vexSituation(i),
      kev: i.kev, epss: i.epss,
    });
    first = false;
  }
  yield '],"inventory":[';
  first = true;
  for (const c of inventory) {
    yield (first ? '' : ',') + JSON.stringify({ targetKind: c.targetKind, targetId: c.targetId, name: c.name, version: c.version, purl: c.purl, type: c.type, sources: SOURCES[c.source] });
    first = false;
  }
  yield '],"checklists":[]}';
}

const nullable = (type: string) => ({ type: [type, 'null'] });

/** The JSON schema of major 1 (version 1.1), served at GET /schemas/project-export/1. */
export const PROJECT_EXPORT_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://vigil.example/schemas/project-export/1',
  title: 'vigil-project-export, major 1 (this release writes 1.1)',
  type: 'object',
  required: ['schema', 'version', 'id', 'asOf', 'product', 'project', 'targets', 'issues', 'inventory'],
  properties: {
    schema: { const: PROJECT_EXPORT_SCHEMA },
    version: { type: 'string', pattern: '^1\\.[0-9]+$' },
    id: { type: 'string', format: 'uuid' },
    asOf: { type: 'string', format: 'date-time' },
    product: { type: 'object', required: ['name', 'version'], properties: { name: { type: 'string' }, version: { type: 'string' } } },
    project: {
      type: 'object', required: ['id', 'name', 'solution'],
      properties: { id: { type: 'integer' }, name: { type: 'string' }, solution: { oneOf: [{ type: 'null' }, { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } }] } },
    },
    targets: {
      type: 'array',
      items: { type: 'object', required: ['kind', 'id', 'name', 'locator', 'branch'], properties: { kind: { enum: ['repository', 'container'] }, id: { type: 'integer' }, name: { type: 'string' }, locator: { type: 'string' }, branch: nullable('string') } },
    },
    issues: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'targetKind', 'targetId', 'type', 'ruleId', 'severity', 'status', 'triageStatus', 'vexSituation'],
        properties: {
          id: { type: 'integer' }, targetKind: { enum: ['repository', 'container'] }, targetId: { type: 'integer' }, type: { type: 'string' }, tool: { type: 'string' },
          ruleId: { type: 'string' }, path: { type: 'string' }, line: nullable('integer'), severity: { type: 'string' }, title: { type: 'string' },
          identifier: nullable('string'), package: nullable('string'), packageVersion: nullable('string'), fixable: nullable('boolean'),
          status: { enum: ['open', 'resolved'] },
          triageStatus: { enum: ['under_review', 'affected', 'not_affected', 'will_not_fix', 'fixed', 'pending_approval'] },
          justification: nullable('string'), reviewDate: nullable('string'), firstSeenAt: { type: 'string' },
          vexSituation: { enum: ['under_review', 'affected', 'pending_approval', 'not_affected_with_justification', 'not_affected_without_justification', 'will_not_fix', 'fixed', 'resolved'] },
          // Optional (a reader of 1.0 is not bound by them): KEV listing and EPSS score as of the export's instant; null = unknown (feed never synchronised).
          kev: nullable('boolean'), epss: { type: ['number', 'null'], minimum: 0, maximum: 1 },
        },
      },
    },
    inventory: {
      type: 'array',
      items: {
        type: 'object', required: ['targetKind', 'targetId', 'name'],
        properties: {
          targetKind: { enum: ['repository', 'container'] }, targetId: { type: 'integer' }, name: { type: 'string' }, version: nullable('string'), purl: nullable('string'), type: { type: 'string' },
          // 1.1: who saw the component; optional, so a reader of 1.0 is not bound by it.
          sources: { type: 'array', items: { enum: ['build', 'scanner'] }, minItems: 1, uniqueItems: true },
        },
      },
    },
    checklists: { type: 'array' },
  },
} as const;
