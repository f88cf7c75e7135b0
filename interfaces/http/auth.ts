import { NextFunction, Response } from 'express';
import { IdentityService } from '../../application/identity/identity-service';
import { missingScopeDetail } from '../../application/identity/principal';
import { Clock } from '../../application/ports/clock';
import { failureBucket } from './client-address';
import { problem } from './problem';
import { WindowCounter } from './rate-limits';
import { VigilRequest } from './route';

export function bearerOf(req: VigilRequest): string | null {
  const header = req.headers.authorization;
  if (header && /^Bearer\s+/i.test(header)) return header.replace(/^Bearer\s+/i, '').trim() || null;
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) return apiKey.trim();
  return null;
}

/**
 * Authentication and the route's access rule (spec 1 §5): 401 never says why; 403 names the
 * missing scope or says the credential may not call the route. Refused bearer tokens count per
 * address; past the ceiling the address is refused until the window ends (audited once).
 */
export function authMiddleware(deps: {
  identity: Pick<IdentityService, 'authenticate' | 'recordBearerFailureCeiling'>; clock: Clock;
  keyRequests: WindowCounter; bearerFailures: WindowCounter;
}) {
  return async (req: VigilRequest, res: Response, next: NextFunction) => {
    try {
      // routing.ts has matched the request: a declared route, or a page that applies its own rule.
      const route = req.route_;
      if (!route) {
        if (req.page_) return next();
        throw problem.notFound(`No route ${req.method} ${req.path}.`);
      }
      const now = deps.clock.now();
      const bucket = failureBucket(req.clientAddress ?? '');
      const secret = bearerOf(req);
      if (secret) {
        const blocked = deps.bearerFailures.blockedFor(bucket, now.getTime());
        if (blocked) throw problem.tooMany('Too many refused credentials from this address; try again later.', blocked);
        const principal = await deps.identity.authenticate(secret);
        if (!principal) {
          const wait = deps.bearerFailures.hit(bucket, now.getTime());
          if (wait === 0 && deps.bearerFailures.blockedFor(bucket, now.getTime())) {
            await deps.identity.recordBearerFailureCeiling({ actor: null, address: req.clientAddress, now }, bucket);
          }
          throw problem.unauthorized();
        }
        req.principal = principal;
        req.bearer = secret;
      }
      req.ctx = { actor: req.principal?.accountId ?? null, address: req.clientAddress ?? null, userAgent: req.headers['user-agent'] ?? null, correlationId: (req.headers['x-correlation-id'] as string) ?? null, now };
      const rule = route.auth;
      if (rule === 'public') return next();
      const p = req.principal;
      if (!p) throw problem.unauthorized();
      if (p.kind === 'key') {
        // Agent requests are not counted against the integration-key rate (S1.8.2-02).
        const wait = rule.scope === 'agent' ? 0 : deps.keyRequests.hit(`key:${p.keyId}`, now.getTime());
        if (wait) throw problem.tooMany('This key has spent its request budget for the minute.', wait);
        if (rule.handlerDecides) return next();
        if (rule.sessionOnly) throw problem.forbidden('An integration key may not call this route; sign in.');
        if (rule.scope && !p.scopes?.includes(rule.scope)) {
          // A scope the account lost with its roles: when the route's roles refuse the account
          // too, that is the answer a person can act on (the gate names auditors and governors).
          if (p.withdrawnScopes.includes(rule.scope) && rule.roles && !p.roles.some((r) => rule.roles!.includes(r))) {
            throw problem.forbidden(rule.rolesDetail ?? `This route is for ${rule.roles.join(', ')} accounts.`);
          }
          throw problem.forbidden(missingScopeDetail(p, rule.scope));
        }
        if (!rule.scope) throw problem.forbidden('An integration key may not call this route.');
      } else if (rule.handlerDecides) {
        return next();
      } else if (rule.keyOnly) {
        throw problem.forbidden('This route takes an integration key, not a session.');
      }
      if (rule.roles && !p.roles.some((r) => rule.roles!.includes(r))) {
        throw problem.forbidden(rule.rolesDetail ?? `This route is for ${rule.roles.join(', ')} accounts.`);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
