import { expect } from 'chai';
import { BODY_LIMIT_SETTING, RouteDef } from '../../../interfaces/http/route';
import { RouteTable } from '../../../interfaces/http/route-table';
import { allRoutes } from '../../../interfaces/http/routes';
import { canonicalPath, otherRoutesAt, pathVariants, RawAnswer, rawRequest, routeVariants } from '../../support/route-paths';
import { RunningVigil, startVigil } from '../../support/vigil';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
// Every body limit small, so that a body over any route's limit is quick to send.
const LIMIT = 2048;
const SMALL_LIMITS = Object.fromEntries(Object.values(BODY_LIMIT_SETTING).map((name) => [name, `${LIMIT}B`]));

/**
 * Issue #17: Express matched routes without regard to case while the credential check did not, so
 * GET /API/V1/accounts answered every account to anyone. Every declared route is asked under every
 * other spelling of its path, with no credential and as an administrator: the answer is 404 before
 * any credential check, and nothing is written.
 */
describe('HTTP routing: paths are matched exactly, before any credential check', function () {
  this.timeout(300_000);
  let v: RunningVigil;
  let admin: string;
  let routes: RouteDef[];

  before(async () => {
    v = await startVigil({ env: { VIGIL_API_DOCS_ENABLED: 'true', VIGIL_SWAGGER_UI_ENABLED: 'true', ...SMALL_LIMITS } });
    admin = await v.signIn();
    routes = allRoutes(v.services);
  });
  after(async () => { await v.stop(); });

  const isProblem = (r: RawAnswer, status: number) => r.status === status && /^application\/problem\+json/.test(r.contentType);
  const bodyFor = (route: RouteDef) => ({ body: `{"x":"${'a'.repeat(LIMIT)}"}`, contentType: route.rawBody?.[0] ?? 'application/json' });
  // A spelling that is plainly another route's path (GET /repositories/Duplicates is GET
  // /repositories/{id}) is that route's business; the last test shows what it answers.
  const variantsOf = (route: RouteDef) => routeVariants(route).filter((variant) => otherRoutesAt(routes, route, variant.path).length === 0);
  const writes = (route: RouteDef) => route.method !== 'get' && route.method !== 'delete';

  /** Sends every variant of every route; answers the ones not refused with a 404 problem, and checks nothing was written. */
  async function variantsNot404(token: string | undefined): Promise<string[]> {
    const wrong: string[] = [];
    for (const route of routes) {
      const before = await v.eventCount();
      const answers = await Promise.all(variantsOf(route).map(async (variant) => ({ variant, r: await rawRequest(v.url, route.method.toUpperCase(), variant.path, { token }) })));
      for (const { variant, r } of answers) {
        if (!isProblem(r, 404)) wrong.push(`${route.method.toUpperCase()} ${variant.path} (${variant.name}): ${r.status} ${r.contentType}`);
      }
      const after = await v.eventCount();
      if (after !== before) wrong.push(`${route.method.toUpperCase()} ${route.path}: ${after - before} events written by its variants`);
    }
    return wrong;
  }

  it('[S1.0-01] enumerates every declared route and many spellings of each', async () => {
    expect(routes.length).to.be.greaterThan(80);
    for (const route of routes) expect(variantsOf(route).length, route.path).to.be.greaterThan(15);
  });

  it('[S1.5-06] [S1.0-01] every non-public route on its exact path without a credential answers 401', async () => {
    const wrong: string[] = [];
    for (const route of routes.filter((r) => r.auth !== 'public')) {
      const r = await rawRequest(v.url, route.method.toUpperCase(), canonicalPath(route));
      if (!isProblem(r, 401)) wrong.push(`${route.method.toUpperCase()} ${canonicalPath(route)}: ${r.status}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('[S1.0-01] [S1.7-01] every other spelling of every route (case, /API/V1, trailing, doubled or leading slash, percent-encoded letter, %2F, dot segments, backslash) answers 404 problem+json without a credential, writing nothing', async () => {
    expect(await variantsNot404(undefined)).to.deep.equal([]);
  });

  it('[S1.0-01] [S1.7-01] every other spelling of every route answers 404 problem+json to an administrator\'s session too, never running the handler, writing nothing', async () => {
    expect(await variantsNot404(admin)).to.deep.equal([]);
  });

  it('[S1.0-01] the examples of issue #17 answer 404: GET /API/V1/accounts, /API/V1/settings, /API/V1/teams, /API/V1/audit-log and POST /API/V1/feeds/sync', async () => {
    const before = await v.eventCount();
    for (const [method, path] of [['GET', '/API/V1/accounts'], ['GET', '/API/V1/settings'], ['GET', '/API/V1/teams'], ['GET', '/API/V1/audit-log'], ['POST', '/API/V1/feeds/sync'], ['GET', '/api/v1/accounts/']]) {
      const r = await rawRequest(v.url, method, path);
      expect(r.status, `${method} ${path}`).to.equal(404);
      expect(JSON.parse(r.text)).to.include({ status: 404, title: 'Not Found', detail: `No route ${method} ${path}.` });
    }
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.8.1-01] a body sent to another spelling is never read: over the route\'s limit it answers 404, where the exact path answers 413', async () => {
    const wrong: string[] = [];
    for (const route of routes.filter(writes)) {
      const method = route.method.toUpperCase();
      const exact = await rawRequest(v.url, method, canonicalPath(route), bodyFor(route));
      if (!isProblem(exact, 413)) wrong.push(`${method} ${canonicalPath(route)} (exact): ${exact.status}, expected 413`);
      for (const variant of variantsOf(route).slice(0, 4)) {
        const r = await rawRequest(v.url, method, variant.path, bodyFor(route));
        if (!isProblem(r, 404)) wrong.push(`${method} ${variant.path} (${variant.name}): ${r.status}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('a malformed JSON body sent to another spelling answers 404, where the exact path answers 400 saying the JSON is not valid', async () => {
    const wrong: string[] = [];
    for (const route of routes.filter((r) => writes(r) && !r.rawBody)) {
      const method = route.method.toUpperCase();
      const exact = await rawRequest(v.url, method, canonicalPath(route), { body: '{"x": ', token: admin });
      if (!isProblem(exact, 400)) wrong.push(`${method} ${canonicalPath(route)} (exact): ${exact.status}, expected 400`);
      const r = await rawRequest(v.url, method, canonicalPath(route).toUpperCase(), { body: '{"x": ', token: admin });
      if (!isProblem(r, 404)) wrong.push(`${method} ${canonicalPath(route).toUpperCase()}: ${r.status}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('[S1.7-01] a declared path asked with a method no route declares on it answers 405 problem+json, as before, with or without a credential or a body', async () => {
    const before = await v.eventCount();
    const wrong: string[] = [];
    const paths = new Map<string, { route: RouteDef; methods: Set<string> }>();
    for (const route of routes) {
      const path = canonicalPath(route);
      const entry = paths.get(path) ?? { route, methods: new Set<string>() };
      entry.methods.add(route.method);
      paths.set(path, entry);
    }
    const table = new RouteTable(routes);
    for (const [path, { route, methods }] of paths) {
      // DELETE /scorecards/badges/x.svg is DELETE /scorecards/badges/{id}: another route, not this path.
      for (const method of METHODS.filter((m) => !methods.has(m) && table.resolve(m, path).kind !== 'route')) {
        for (const token of [undefined, admin]) {
          const r = await rawRequest(v.url, method.toUpperCase(), path, { token, ...(method === 'head' ? {} : bodyFor(route)) });
          if (!isProblem(r, 405)) wrong.push(`${method.toUpperCase()} ${path} ${token ? 'admin' : 'anonymous'}: ${r.status}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.8.3-58] [S1.8.3-59] the pages outside /api/v1 are matched exactly too: /v3/api-docs and /swagger-ui.html answer only on their own path', async () => {
    expect((await rawRequest(v.url, 'GET', '/v3/api-docs')).status).to.equal(401);
    expect((await rawRequest(v.url, 'GET', '/v3/api-docs', { token: admin })).status).to.equal(200);
    expect((await rawRequest(v.url, 'HEAD', '/v3/api-docs', { token: admin })).status).to.equal(200);
    expect((await rawRequest(v.url, 'GET', '/swagger-ui.html')).status).to.equal(200);
    expect((await rawRequest(v.url, 'POST', '/v3/api-docs', { token: admin })).status).to.equal(404);
    const wrong: string[] = [];
    for (const page of ['/v3/api-docs', '/swagger-ui.html']) {
      const variants = pathVariants(page, page.split('/').slice(1).map(() => true));
      for (const variant of variants) {
        for (const token of [undefined, admin]) {
          const r = await rawRequest(v.url, 'GET', variant.path, { token });
          if (!isProblem(r, 404)) wrong.push(`GET ${variant.path} (${variant.name}) ${token ? 'admin' : 'anonymous'}: ${r.status}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('[S1.5-06] a spelling that is plainly the path of another route is that route, under its own credential rule, or 405 for another method', async () => {
    const before = await v.eventCount();
    const others: string[] = [];
    for (const route of routes) {
      for (const variant of routeVariants(route)) {
        const at = otherRoutesAt(routes, route, variant.path);
        if (at.length === 0) continue;
        const method = route.method.toUpperCase();
        const same = at.find((o) => o.method === route.method);
        others.push(`${method} ${variant.path}: ${same ? `${method} ${same.path}` : 'another method'}`);
        if (same) expect(same.auth, same.path).to.not.equal('public');
        const r = await rawRequest(v.url, method, variant.path);
        expect(isProblem(r, same ? 401 : 405), `${method} ${variant.path}: ${r.status}`).to.equal(true);
      }
    }
    expect(others.length).to.be.lessThan(30);
    expect(others).to.include('GET /api/v1/repositories/Duplicates: GET /repositories/{id}');
    expect(others).to.include('POST /api/v1/issues/Triage: another method');
    expect(await v.eventCount()).to.equal(before);
  });
});
