import * as fs from 'node:fs';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { corpusPath } from './corpus';
import { attestationProblems } from './attestation-protos';

const read = (...parts: string[]) => JSON.parse(fs.readFileSync(corpusPath('schemas', ...parts), 'utf8'));

/** IRIs are URIs that may hold any Unicode character: checked as "scheme:rest" (ajv-formats has no iri). */
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

function withFormats<A extends { addFormat: (name: string, f: RegExp) => unknown }>(ajv: A): A {
  addFormats(ajv as never);
  ajv.addFormat('iri', IRI);
  ajv.addFormat('iri-reference', /^[^\s]*$/);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  return ajv;
}

let cache: Record<string, ValidateFunction> | null = null;

/** Validators of the official schemas in the corpus (fixtures/schemas): CycloneDX 1.6, OpenVEX 0.2.0, CSAF 2.0, SARIF 2.1.0. */
export function exportSchemas(): Record<'cyclonedx' | 'openvex' | 'csaf' | 'sarif', ValidateFunction> {
  if (cache) return cache;
  const cdx = withFormats(new Ajv({ strict: false, allErrors: true }));
  cdx.addSchema(read('cyclonedx', 'spdx.schema.json'), 'spdx.schema.json');
  cdx.addSchema(read('cyclonedx', 'jsf-0.82.schema.json'), 'jsf-0.82.schema.json');
  const v2020 = withFormats(new Ajv2020({ strict: false, allErrors: true }));
  for (const cvss of ['cvss-v2.0.json', 'cvss-v3.0.json', 'cvss-v3.1.json']) {
    const schema = read('csaf-2.0', cvss);
    // The CVSS schemas are draft-07 documents; their content validates the same under 2020-12.
    delete schema.$schema;
    delete schema.id; // draft-04's spelling, with a query the CSAF schema's $ref does not carry
    delete schema.$id;
    v2020.addSchema(schema, `https://www.first.org/cvss/${cvss}`);
  }
  const sarif = withFormats(new AjvDraft04({ strict: false, allErrors: true }) as never as Ajv);
  cache = {
    cyclonedx: cdx.compile(read('cyclonedx', 'bom-1.6.schema.json')),
    openvex: v2020.compile(read('openvex', 'openvex_json_schema.json')),
    csaf: v2020.compile(read('csaf-2.0', 'csaf_json_schema.json')),
    sarif: sarif.compile(read('sarif', 'sarif-schema-2.1.0.json')),
  };
  return cache;
}

/** Throws with the schema's own messages when the document does not validate. */
export function expectValid(kind: keyof ReturnType<typeof exportSchemas>, document: unknown): void {
  const validate = exportSchemas()[kind];
  if (!validate(document)) throw new Error(`${kind} schema: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
}

/** The CSAF 2.0 mandatory tests (6.1) of @secvisogram/csaf-validator-lib (an ES module, loaded once). */
export async function csafMandatoryFailures(document: unknown): Promise<Array<{ name: string; errors: unknown[] }>> {
  const [{ default: validate }, mandatory] = await Promise.all([
    import('@secvisogram/csaf-validator-lib/validate.js' as string),
    import('@secvisogram/csaf-validator-lib/mandatoryTests.js' as string),
  ]);
  const result = await validate(Object.values(mandatory), document);
  return result.tests.filter((t: { isValid: boolean }) => !t.isValid).map((t: { name: string; errors: unknown[] }) => ({ name: t.name, errors: t.errors }));
}

/**
 * in-toto Statement v1 and the DSSE envelope have no official JSON schema (the corpus holds their
 * specifications: schemas/in-toto/statement-v1.md, resource_descriptor-v1.md, schemas/dsse/envelope.md,
 * and their official .proto files); these render the fields those documents state as required, with
 * their types. expectValidAttestation also checks against the official protos (attestation-protos.ts).
 */
const B64 = '^[A-Za-z0-9+/]*={0,2}$';
export const IN_TOTO_STATEMENT_V1 = {
  type: 'object', required: ['_type', 'subject', 'predicateType'],
  properties: {
    _type: { const: 'https://in-toto.io/Statement/v1' },
    subject: {
      type: 'array', minItems: 1,
      items: { type: 'object', required: ['digest'], properties: { name: { type: 'string' }, uri: { type: 'string' }, digest: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', pattern: '^[0-9a-f]+$' } } } },
    },
    predicateType: { type: 'string', format: 'uri' },
    predicate: { type: 'object' },
  },
};
export const DSSE_ENVELOPE = {
  type: 'object', required: ['payload', 'payloadType', 'signatures'], additionalProperties: false,
  properties: {
    payload: { type: 'string', pattern: B64 }, payloadType: { type: 'string', minLength: 1 },
    signatures: { type: 'array', minItems: 1, items: { type: 'object', required: ['sig'], additionalProperties: false, properties: { keyid: { type: 'string' }, sig: { type: 'string', pattern: B64 } } } },
  },
};

export function expectValidAttestation(envelope: unknown): void {
  const ajv = withFormats(new Ajv({ strict: false, allErrors: true }));
  const check = (name: string, schema: object, value: unknown) => {
    const validate = ajv.compile(schema);
    if (!validate(value)) throw new Error(`${name}: ${JSON.stringify(validate.errors)}`);
  };
  check('DSSE envelope', DSSE_ENVELOPE, envelope);
  check('in-toto Statement v1', IN_TOTO_STATEMENT_V1, JSON.parse(Buffer.from((envelope as { payload: string }).payload, 'base64').toString('utf8')));
  const problems = attestationProblems(envelope);
  if (problems.length) throw new Error(`against the official in-toto and DSSE protos: ${problems.join('; ')}`);
}
