import helmet from 'helmet';

/**
 * Security headers on every answer, problem documents and 404s included (the middleware runs
 * before the route match). The Content-Security-Policy is strict: scripts, styles, fonts and
 * images only from Vigil itself (no inline script or style attribute text, no eval), nothing may
 * frame Vigil, forms post only to it. A page that needs another policy (the API explorer, the web
 * interface) sets its own Content-Security-Policy header in its handler, which replaces this one.
 * Strict-Transport-Security is sent too: browsers ignore it over plain http and keep it behind TLS.
 */
export const STRICT_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  scriptSrcAttr: ["'none'"],
  upgradeInsecureRequests: null,
};

export function securityHeaders() {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: STRICT_CSP },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
