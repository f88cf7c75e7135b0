import { DomainEvent } from '../shared/decider';
import { ACCOUNT_CREDENTIALS_SIEM } from './sso';

/** Spec 2 §6: a team's members changed. */
export const TEAM_GRANT_SIEM = { signature: 'VGL-SEC-011', name: 'Team access grant changed', severity: 6 } as const;

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12 error types Vigil answers with. */
export type ScimType = 'invalidFilter' | 'invalidValue' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'mutability' | 'uniqueness';

/** A refused SCIM request: its status and scimType, answered as RFC 7644 §3.12 says. */
export class ScimError extends Error {
  constructor(readonly status: number, message: string, readonly scimType?: ScimType) {
    super(message);
    this.name = 'ScimError';
  }
}

/** The filters GET /Users evaluates (spec 1 §5, S1.5-21): the attribute and the value compared with eq. */
export type UserFilter = { attribute: 'userName' | 'externalId'; value: string };

/**
 * The one filter form evaluated: `<attribute> eq "<value>"`, attribute and operator in any case
 * (RFC 7644 §3.4.2.2), the value a JSON string. The table names the attributes per resource; any
 * other attribute, operator, a logical expression or a malformed value is invalidFilter (S1.5-22).
 */
export const FILTERABLE: Record<'Users' | 'Groups', readonly string[]> = {
  Users: ['userName', 'externalId'],
  Groups: ['displayName'],
};

export function parseFilter(resource: 'Users' | 'Groups', text: string): { attribute: string; value: string } {
  const match = /^\s*([A-Za-z][A-Za-z0-9._:-]*)\s+(eq)\s+("(?:[^"\\]|\\.)*")\s*$/i.exec(text);
  const attribute = match ? FILTERABLE[resource].find((a) => a.toLowerCase() === match[1].toLowerCase()) : undefined;
  if (!match || !attribute) {
    throw new ScimError(400, `Only the filters ${FILTERABLE[resource].map((a) => `${a} eq "..."`).join(' and ')} are evaluated on ${resource}; "${text.slice(0, 200)}" is not one of them.`, 'invalidFilter');
  }
  let value: unknown;
  try {
    value = JSON.parse(match[3]);
  } catch {
    throw new ScimError(400, 'The filter value is not a valid string.', 'invalidFilter');
  }
  return { attribute, value: String(value) };
}

/** What a SCIM write changes on an account: the writable attributes Vigil keeps. */
export interface UserChanges {
  displayName?: string;
  active?: boolean;
  externalId?: string | null;
}

/**
 * A PatchOp's operations (RFC 7644 §3.5.2) on the attributes Vigil keeps: add and replace of
 * active, displayName (or name.formatted) and externalId, with a path or as a value object;
 * remove of externalId. Other paths are invalidPath; userName is not writable (mutability).
 */
export function patchChanges(operations: unknown): UserChanges {
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > 50) throw new ScimError(400, 'Operations must list 1 to 50 operations.', 'invalidSyntax');
  const changes: UserChanges = {};
  for (const operation of operations) {
    const { op, path, value } = (operation ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
    const verb = typeof op === 'string' ? op.toLowerCase() : '';
    if (!['add', 'replace', 'remove'].includes(verb)) throw new ScimError(400, `Unknown op ${JSON.stringify(op)}; write add, replace or remove.`, 'invalidSyntax');
    if (path !== undefined && typeof path !== 'string') throw new ScimError(400, 'path must be a string.', 'invalidPath');
    if (verb === 'remove') {
      if (typeof path === 'string' && path.toLowerCase() === 'externalid') { changes.externalId = null; continue; }
      throw new ScimError(400, `Vigil removes only externalId; "${String(path)}" cannot be removed.`, path ? 'invalidPath' : 'noTarget');
    }
    const entries: [string, unknown][] = path === undefined
      ? (value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : [])
      : [[path as string, value]];
    if (entries.length === 0) throw new ScimError(400, 'An operation without path needs a value object.', 'invalidValue');
    for (const [attribute, v] of entries) applyAttribute(changes, attribute, v);
  }
  return changes;
}

/** One attribute of a write (PUT body, POST body or a patch operation) into the changes. */
export function applyAttribute(changes: UserChanges, attribute: string, value: unknown): void {
  switch (attribute.toLowerCase()) {
    case 'active':
      if (typeof value !== 'boolean') throw new ScimError(400, 'active must be true or false.', 'invalidValue');
      changes.active = value;
      return;
    case 'displayname':
    case 'name.formatted':
      changes.displayName = boundedText('displayName', value, 200);
      return;
    case 'name':
      if (value && typeof value === 'object' && 'formatted' in value) changes.displayName = boundedText('name.formatted', (value as { formatted: unknown }).formatted, 200);
      return;
    case 'externalid':
      changes.externalId = value === null ? null : boundedText('externalId', value, 255);
      return;
    case 'username':
      throw new ScimError(400, 'userName cannot be changed in Vigil.', 'mutability');
    case 'schemas': case 'id': case 'meta': case 'emails': case 'phonenumbers': case 'title': case 'locale': case 'timezone': case 'preferredlanguage': case 'nickname':
      return; // read-only or not kept by Vigil: ignored, as RFC 7643 allows for attributes a provider does not support
    default:
      if (attribute.startsWith('urn:')) return; // extension schemas Vigil does not keep
      throw new ScimError(400, `Vigil does not keep the attribute "${attribute.slice(0, 100)}".`, 'invalidPath');
  }
}

/** A string of at most `max` characters, no control characters. */
export function boundedText(name: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || Array.from(value).length > max || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ScimError(400, `${name} must be text of at most ${max} characters without control characters.`, 'invalidValue');
  }
  return value.trim();
}

/** The SCIM records, beside the account and team events they accompany in one commit (audited). */
export type ScimEvent =
  | DomainEvent<'ScimTokenIssued', { tokenHash: string; prefix: string }>
  | DomainEvent<'ScimTokenRevoked', Record<string, never>>
  | DomainEvent<'ScimUserProvisioned', { accountId: number; userName: string; externalId: string | null; via: 'created' | 'bound'; siem: typeof ACCOUNT_CREDENTIALS_SIEM }>
  | DomainEvent<'ScimUserChanged', { accountId: number; changes: UserChanges; siem: typeof ACCOUNT_CREDENTIALS_SIEM }>
  | DomainEvent<'ScimUserDeprovisioned', { accountId: number; siem: typeof ACCOUNT_CREDENTIALS_SIEM }>
  | DomainEvent<'ScimGroupChanged', { teamId: number; added: number[]; removed: number[]; created: boolean; siem: typeof TEAM_GRANT_SIEM }>;
