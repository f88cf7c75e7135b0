/**
 * What each role may do, as the API's route rules say (interfaces/http/routes/*.ts): the interface
 * offers only what the server would allow; the server still decides every call.
 */
import type { Me, Role } from './session';

const WRITING: Role[] = ['administrator', 'ciso', 'security_lead', 'writer'];
const has = (me: Me | null, roles: Role[]) => !!me && me.roles.some((r) => roles.includes(r));

export const may = {
  write: (me: Me | null) => has(me, WRITING),
  triage: (me: Me | null) => has(me, WRITING),
  askGate: (me: Me | null) => has(me, WRITING),
  registerTargets: (me: Me | null) => has(me, WRITING),
  scanNow: (me: Me | null) => has(me, ['administrator']),
  createProjects: (me: Me | null) => has(me, ['administrator', 'ciso']),
  administer: (me: Me | null) => has(me, ['administrator']),
  readAudit: (me: Me | null) => has(me, ['auditor', 'administrator', 'ciso']),
  listSources: (me: Me | null) => has(me, ['platform_governor', 'administrator', 'auditor', 'ciso']),
  declareSources: (me: Me | null) => has(me, ['platform_governor']),
  /** GET/PUT /siem/config and POST /siem/test; the outbox is the administrator's alone. */
  configureSiem: (me: Me | null) => has(me, ['administrator', 'security_lead']),
  /** PATCH /settings: each setting by the role spec 1 §5 names, administrator otherwise; the server decides. */
  changeSettings: (me: Me | null) => has(me, ['administrator', 'ciso', 'security_lead']),
};
