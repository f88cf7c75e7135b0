/** Roles of CONVENTIONS.md and what each may do; the scopes an integration key may carry (spec 1 §2.4, §5). */
export const ROLES = ['administrator', 'ciso', 'security_lead', 'platform_governor', 'auditor', 'writer', 'reader'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ['scan', 'read', 'report_import', 'sarif_import', 'agent'] as const;
export type Scope = (typeof SCOPES)[number];

/** "An account that writes" (CONVENTIONS.md). */
export const WRITING_ROLES: readonly Role[] = ['administrator', 'ciso', 'security_lead', 'writer'];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function writes(roles: readonly Role[]): boolean {
  return roles.some((r) => WRITING_ROLES.includes(r));
}

export function isAdministrator(roles: readonly Role[]): boolean {
  return roles.includes('administrator');
}

/**
 * The scopes an account's roles allow it to put on a key: a key never does more than its
 * account (spec 1 §2.4). scan serves the gate (an account that writes) and scan triggers
 * (administrators, checked again on the route); imports must not come from an auditor (§5);
 * agent keys are an administrator's.
 */
export function scopesAllowedFor(roles: readonly Role[]): Set<Scope> {
  const allowed = new Set<Scope>(['read']);
  if (writes(roles)) allowed.add('scan');
  if (!roles.includes('auditor') && (writes(roles) || roles.includes('platform_governor'))) {
    allowed.add('sarif_import');
    allowed.add('report_import');
  }
  if (isAdministrator(roles)) allowed.add('agent');
  return allowed;
}

/**
 * A key's rights on each use (issue #17): the scopes it was issued with that its account's
 * current roles may still hold, by the rule that decided them at issue. A writer's import key
 * stops importing when the account becomes a reader; the key itself is unchanged, so a later
 * promotion gives the scope back. `withdrawn` lets a refusal say why.
 */
export function effectiveScopes(keyScopes: readonly Scope[], roles: readonly Role[]): { held: Scope[]; withdrawn: Scope[] } {
  const allowed = scopesAllowedFor(roles);
  return { held: keyScopes.filter((s) => allowed.has(s)), withdrawn: keyScopes.filter((s) => !allowed.has(s)) };
}
