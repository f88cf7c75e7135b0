import * as protobuf from 'protobufjs';
import { corpusPath } from './corpus';

/**
 * The official definitions of the in-toto Statement v1 (in_toto_attestation.v1.Statement and
 * ResourceDescriptor) and of the DSSE envelope (io.intoto.Envelope), as the corpus holds them
 * (schemas/in-toto/*.proto, schemas/dsse/envelope.proto: no JSON schema is published for either),
 * loaded with protobufjs; a JSON document is checked against them under the proto3 JSON mapping,
 * strictly: every member must be a declared field (its json_name or lowerCamelCase name), of the
 * field's type (string, base64 bytes, repeated, map<string,string>, message, Struct = any object).
 * The REQUIRED fields of the prose specifications (statement-v1.md, resource_descriptor-v1.md,
 * envelope.md) are checked on top, since proto3 has no required fields.
 */
let root: protobuf.Root | null = null;

function protos(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (origin, target) => {
    if (target.startsWith('google/protobuf/')) return protobuf.util.path.resolve(origin, target);
    if (target.endsWith('resource_descriptor.proto')) return corpusPath('schemas', 'in-toto', 'resource_descriptor.proto');
    return target;
  };
  r.loadSync([corpusPath('schemas', 'in-toto', 'statement.proto'), corpusPath('schemas', 'dsse', 'envelope.proto')], { keepCase: true });
  r.resolveAll();
  root = r;
  return r;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$|^[A-Za-z0-9_-]*$/;
const jsonName = (f: protobuf.Field) => (f.options?.json_name as string | undefined) ?? f.name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Problems of `value` read as the proto3 JSON form of message `type` (empty: it conforms). */
export function protoJsonProblems(typeName: string, value: unknown, at = '$'): string[] {
  const type = protos().lookupType(typeName);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: not a JSON object for ${type.fullName}`];
  const problems: string[] = [];
  const byJson = new Map<string, protobuf.Field>();
  for (const f of type.fieldsArray) { byJson.set(jsonName(f), f); byJson.set(f.name, f); }
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const field = byJson.get(key);
    if (!field) { problems.push(`${at}.${key}: no such field in ${type.fullName}`); continue; }
    field.resolve();
    if (field.map) {
      if (member === null || typeof member !== 'object' || Array.isArray(member)) problems.push(`${at}.${key}: a map is a JSON object`);
      else for (const [k, v] of Object.entries(member)) problems.push(...scalarProblems(field.type, v, `${at}.${key}.${k}`));
      continue;
    }
    const items = field.repeated ? (Array.isArray(member) ? member : null) : [member];
    if (!items) { problems.push(`${at}.${key}: a repeated field is a JSON array`); continue; }
    items.forEach((item, i) => {
      const where = field.repeated ? `${at}.${key}[${i}]` : `${at}.${key}`;
      if (field.resolvedType instanceof protobuf.Type) {
        if (field.resolvedType.fullName === '.google.protobuf.Struct') {
          if (item === null || typeof item !== 'object' || Array.isArray(item)) problems.push(`${where}: a Struct is a JSON object`);
        } else problems.push(...protoJsonProblems(field.resolvedType.fullName.slice(1), item, where));
      } else problems.push(...scalarProblems(field.type, item, where));
    });
  }
  return problems;
}

function scalarProblems(type: string, value: unknown, at: string): string[] {
  if (type === 'string') return typeof value === 'string' ? [] : [`${at}: a string`];
  if (type === 'bytes') return typeof value === 'string' && BASE64.test(value) ? [] : [`${at}: bytes as base64`];
  return [`${at}: type ${type} not expected in these messages`];
}

/** The DSSE envelope and the in-toto Statement v1 it carries, against the official protos and the required fields of their specifications. */
export function attestationProblems(envelope: any): string[] {
  const problems = protoJsonProblems('io.intoto.Envelope', envelope);
  for (const f of ['payload', 'payloadType', 'signatures']) if (envelope?.[f] === undefined) problems.push(`$.${f}: REQUIRED (envelope.md)`);
  if (!Array.isArray(envelope?.signatures) || envelope.signatures.length < 1) problems.push('$.signatures: at least one (envelope.proto)');
  else envelope.signatures.forEach((s: any, i: number) => { if (!s?.sig) problems.push(`$.signatures[${i}].sig: REQUIRED`); });
  if (problems.length || typeof envelope.payload !== 'string') return problems;
  let statement: any;
  try { statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')); } catch { return ['payload: not JSON']; }
  problems.push(...protoJsonProblems('in_toto_attestation.v1.Statement', statement, 'payload'));
  if (statement._type !== 'https://in-toto.io/Statement/v1') problems.push('payload._type: https://in-toto.io/Statement/v1 (statement-v1.md)');
  if (typeof statement.predicateType !== 'string' || !statement.predicateType) problems.push('payload.predicateType: REQUIRED (statement-v1.md)');
  if (!Array.isArray(statement.subject) || !statement.subject.length) problems.push('payload.subject: REQUIRED, at least one (statement-v1.md)');
  else statement.subject.forEach((s: any, i: number) => {
    if (!s?.digest || !Object.keys(s.digest).length) problems.push(`payload.subject[${i}].digest: each subject MUST have digest set (statement-v1.md)`);
  });
  return problems;
}
