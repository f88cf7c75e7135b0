import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { BuildSbom, CycloneDxVersion } from '../../domain/imports/reports';
import { bounded, refuse } from './import-refusal';
import { decodeUnicodeText } from './text';

/**
 * Build SBOM uploads (spec §4.3 "Build SBOM rules", S1.4.3-52..55): CycloneDX JSON 1.4, 1.5 or
 * 1.6, validated strictly against the official CycloneDX JSON schemas shipped with
 * @cyclonedx/cyclonedx-library (res/schema/*.SNAPSHOT.schema.json), with at least one and at
 * most 50,000 components. Strict means a document the schema refuses is refused, even when it
 * comes from a well-known tool with placeholder values: the inventory must be trustworthy.
 */

export type { BuildSbom, BuildSbomComponent, CycloneDxVersion } from '../../domain/imports/reports';

export const MAX_COMPONENTS = 50_000;
/**
 * A component's name, version, purl or bom-ref: at most this many characters (an inventory entry,
 * not a payload; their columns are text) and no control character (PostgreSQL text refuses U+0000,
 * and none belongs in an identifier: issue #17).
 */
export const COMPONENT_FIELD_MAX = 8192;
const VERSIONS: readonly CycloneDxVersion[] = ['1.4', '1.5', '1.6'];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a schema set lives: one file per bom version plus the spdx and jsf schemas they $ref. */
export interface SchemaFiles {
  bom: Record<CycloneDxVersion, string>;
  /** URL the bom schemas use to $ref each auxiliary schema -> file. */
  auxiliary: Record<string, string>;
}

const LIBRARY_SCHEMAS = path.join(path.dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');

/** The official schemas as the CycloneDX library ships them (the default). */
export const LIBRARY_SCHEMA_FILES: SchemaFiles = {
  bom: {
    '1.4': path.join(LIBRARY_SCHEMAS, 'bom-1.4.SNAPSHOT.schema.json'),
    '1.5': path.join(LIBRARY_SCHEMAS, 'bom-1.5.SNAPSHOT.schema.json'),
    '1.6': path.join(LIBRARY_SCHEMAS, 'bom-1.6.SNAPSHOT.schema.json'),
  },
  auxiliary: {
    'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json': path.join(LIBRARY_SCHEMAS, 'spdx.SNAPSHOT.schema.json'),
    'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json': path.join(LIBRARY_SCHEMAS, 'jsf-0.82.SNAPSHOT.schema.json'),
  },
};

/**
 * Validates documents against one schema set. One Ajv instance per set; each bom version is
 * compiled on first use and kept (compiling bom-1.6 costs far more than validating a document).
 * Nothing is ever fetched: an unknown $ref fails compilation instead of going to the network.
 */
export class CycloneDxValidator {
  private ajv: Ajv | null = null;
  private readonly compiled = new Map<CycloneDxVersion, ValidateFunction>();

  constructor(private readonly files: SchemaFiles = LIBRARY_SCHEMA_FILES) {}

  /** null when valid, else a sentence naming the first failing JSON pointer. */
  validate(version: CycloneDxVersion, document: unknown): string | null {
    const check = this.compiledFor(version);
    if (check(document)) return null;
    return describe(check.errors?.[0], version);
  }

  private compiledFor(version: CycloneDxVersion): ValidateFunction {
    let check = this.compiled.get(version);
    if (!check) {
      check = this.instance().compile(withLinearUniqueItems(readJson(this.files.bom[version])) as object);
      this.compiled.set(version, check);
    }
    return check;
  }

  private instance(): Ajv {
    if (this.ajv) return this.ajv;
    const schemas: Record<string, object> = {};
    for (const [url, file] of Object.entries(this.files.auxiliary)) schemas[url] = readJson(file) as object;
    // strict off: the official schemas use keywords and formats Ajv's strict mode would reject.
    // code.optimize off: Ajv's optimisation pass over the generated code of bom-1.6 costs about a
    // second per compilation (the first import after a start) and buys no measurable validation time.
    const ajv = new Ajv({ schemas, strict: false, allErrors: false, useDefaults: false, addUsedSchema: false, code: { optimize: false } });
    addFormats(ajv);
    // No sound validator exists for these two (the CycloneDX library accepts iri-reference as is).
    ajv.addFormat('iri-reference', true);
    ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
    ajv.addKeyword({ keyword: UNIQUE, type: 'array', schemaType: 'boolean', errors: false, validate: allDistinct });
    this.ajv = ajv;
    return ajv;
  }
}

/**
 * uniqueItems, linear. Ajv compares object items pairwise (quadratic): on 9,000 components that
 * is tens of seconds. The bom schemas' 46 uniqueItems are renamed to a keyword that gives the
 * same verdict (JSON equality, object key order ignored) through one canonical string per item.
 */
const UNIQUE = 'x-uniqueItemsLinear';

function withLinearUniqueItems(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withLinearUniqueItems);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'uniqueItems') out[UNIQUE] = value;
    else out[key] = key === 'enum' || key === 'const' || key === 'examples' ? value : withLinearUniqueItems(value);
  }
  return out;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function allDistinct(required: boolean, data: unknown[]): boolean {
  if (!required) return true;
  const seen = new Set<string>();
  for (const item of data) {
    const key = canonical(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function describe(error: ErrorObject | undefined, version: CycloneDxVersion): string {
  if (!error) return `The SBOM does not match the CycloneDX ${version} schema.`;
  const pointer = error.instancePath === '' ? '/' : error.instancePath;
  if (error.keyword === UNIQUE) return `The SBOM does not match the CycloneDX ${version} schema at ${pointer}: must NOT have duplicate items.`;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` ("${String((error.params as { additionalProperty?: string }).additionalProperty)}")`
      : error.keyword === 'enum'
        ? ` (${(error.params as { allowedValues?: unknown[] }).allowedValues?.slice(0, 8).map((v) => JSON.stringify(v)).join(', ')})`
        : '';
  return `The SBOM does not match the CycloneDX ${version} schema at ${pointer}: ${error.message ?? 'invalid'}${extra}.`;
}

let defaultValidator: CycloneDxValidator | null = null;

export function parseBuildSbom(body: Buffer, validator: CycloneDxValidator = (defaultValidator ??= new CycloneDxValidator())): BuildSbom {
  const text = decodeUnicodeText(body, 'SBOM');
  if (text.trimStart().startsWith('<')) refuse('CycloneDX XML is not accepted; send CycloneDX JSON 1.4 to 1.6.');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    refuse(`The SBOM is not readable as JSON (${(err as Error).message}).`);
  }
  if (!isObject(doc)) refuse('The SBOM is not a CycloneDX document: it must be a JSON object.');
  if (doc.spdxVersion !== undefined || doc.SPDXID !== undefined) {
    refuse('The SBOM is an SPDX document; only CycloneDX JSON 1.4 to 1.6 is accepted.');
  }
  if (doc.bomFormat !== 'CycloneDX') {
    const declared = typeof doc.bomFormat === 'string' ? `declares bomFormat "${doc.bomFormat}"` : 'has no bomFormat "CycloneDX"';
    refuse(`The SBOM ${declared}; only CycloneDX JSON 1.4 to 1.6 is accepted.`);
  }
  const specVersion = doc.specVersion;
  if (typeof specVersion !== 'string' || !(VERSIONS as readonly string[]).includes(specVersion)) {
    refuse(`The SBOM declares CycloneDX ${typeof specVersion === 'string' ? specVersion : 'without a specVersion'}; only 1.4, 1.5 and 1.6 are accepted.`);
  }
  const version = specVersion as CycloneDxVersion;
  // Counted before validation so that an oversized document is refused without validating it.
  const components = flattenComponents(doc.components);
  let problem: string | null;
  try {
    problem = validator.validate(version, doc);
  } catch (err) {
    if (err instanceof RangeError) refuse('The SBOM nests too deeply to be validated.');
    throw err;
  }
  if (problem) refuse(problem);
  if (components.length === 0) refuse('The SBOM lists no component; a build SBOM needs at least one.');
  return {
    specVersion: version,
    components: components.map(({ component: c, at }) => {
      const text = (field: string, value: unknown): string | null => (typeof value === 'string' ? bounded('SBOM', `${at}.${field}`, value, COMPONENT_FIELD_MAX) : null);
      return { name: text('name', String(c.name))!, version: text('version', c.version), purl: text('purl', c.purl), type: String(c.type), bomRef: text('bom-ref', c['bom-ref']) };
    }),
  };
}

/**
 * components[] with their nested components[], depth first, iteratively; refuses past 50,000. Each
 * with where it is in the document (components[0].components[2]), to name it in a refusal.
 */
function flattenComponents(top: unknown): Array<{ component: Json; at: string }> {
  const out: Array<{ component: Json; at: string }> = [];
  const stack: Array<{ list: unknown[]; at: string }> = Array.isArray(top) ? [{ list: top, at: 'components' }] : [];
  const cursor: number[] = stack.length ? [0] : [];
  while (stack.length) {
    const { list, at } = stack[stack.length - 1];
    const i = cursor[cursor.length - 1]++;
    if (i >= list.length) {
      stack.pop();
      cursor.pop();
      continue;
    }
    const c = list[i];
    if (!isObject(c)) continue;
    out.push({ component: c, at: `${at}[${i}]` });
    if (out.length > MAX_COMPONENTS) refuse(`The SBOM lists more than ${MAX_COMPONENTS} components.`);
    if (Array.isArray(c.components) && c.components.length) {
      stack.push({ list: c.components, at: `${at}[${i}].components` });
      cursor.push(0);
    }
  }
  return out;
}
