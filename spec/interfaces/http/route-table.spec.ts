import { expect } from 'chai';
import express, { NextFunction, Request, Response } from 'express';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { buildOpenApi } from '../../../interfaces/http/openapi';
import { RouteDef } from '../../../interfaces/http/route';
import { RouteTable } from '../../../interfaces/http/route-table';
import { allRoutes } from '../../../interfaces/http/routes';
import { Services } from '../../../interfaces/http/services';
import { useRequestValidation } from '../../../interfaces/http/validation';
import { canonicalPath, otherRoutesAt, rawRequest, routeVariants } from '../../support/route-paths';

// Only the routes' definitions are read here; no handler runs, so no service is needed.
const routes = allRoutes({} as Services);
const table = new RouteTable(routes);
const route = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;

describe('RouteTable: one exact match per request', () => {
  it('[S1.0-01] resolves the exact path of every declared route to that route, its parameters decoded', () => {
    for (const r of routes) {
      const found = table.resolve(r.method, canonicalPath(r));
      expect(found.kind, `${r.method} ${r.path}`).to.equal('route');
      if (found.kind === 'route') expect(found.route, `${r.method} ${r.path}`).to.equal(r);
    }
    const found = table.resolve('DELETE', '/api/v1/teams/7/grants/repository/12');
    expect(found).to.deep.include({ kind: 'route', params: { id: '7', kind: 'repository', targetId: '12' } });
  });

  it('[S1.0-01] resolves another spelling of a route to no route, unless it plainly is the path of another route', () => {
    for (const r of routes) {
      for (const variant of routeVariants(r)) {
        const found = table.resolve(r.method, variant.path);
        const others = otherRoutesAt(routes, r, variant.path);
        const what = `${r.method} ${variant.path} (${variant.name})`;
        const sameMethod = others.find((o) => o.method === r.method);
        if (sameMethod) expect(found.kind === 'route' && found.route, what).to.equal(sameMethod);
        else expect(found.kind, what).to.equal(others.length ? 'other-method' : 'none');
      }
    }
  });

  it('prefers a literal segment over a parameter, as the request validator does', () => {
    const found = table.resolve('GET', '/api/v1/repositories/duplicates');
    expect(found.kind === 'route' && found.route).to.equal(route('get', '/repositories/duplicates'));
  });

  it('decodes parameters, and ignores the query', () => {
    const found = table.resolve('POST', '/api/v1/sarif-sources/team%2Da/disable?x=%2F');
    expect(found).to.deep.include({ kind: 'route', params: { slug: 'team-a' } });
    expect(table.resolve('GET', '/api/v1/accounts?limit=5')).to.deep.include({ kind: 'route', route: route('get', '/accounts') });
  });

  it('takes a parameter that decodes to a slash, a backslash or a dot segment, or does not decode, for no path at all', () => {
    for (const slug of ['a%2Fb', 'a%2fb', 'a%5Cb', 'a\\b', '.', '..', '%2E', '%2e%2E', '%E0', '%', 'a%2', 'a#b', 'a b', '']) {
      expect(table.resolve('DELETE', `/api/v1/sarif-sources/${slug}`).kind, slug).to.equal('none');
    }
  });

  it('tells a declared path asked with another method (405) from a path no route declares (404)', () => {
    expect(table.resolve('PUT', '/api/v1/accounts').kind).to.equal('other-method');
    expect(table.resolve('HEAD', '/api/v1/health').kind).to.equal('other-method');
    expect(table.resolve('GET', '/api/v1/nothing').kind).to.equal('none');
    expect(table.resolve('GET', 'http://vigil.example/api/v1/accounts').kind).to.equal('none');
  });

  it('refuses a table that declares one route twice', () => {
    const twice = [route('get', '/repositories/{id}'), { ...route('get', '/repositories/{id}'), path: '/repositories/{other}' }] as RouteDef[];
    expect(() => new RouteTable(twice)).to.throw('declared twice');
  });
});

describe('RouteTable and the request validator agree on every route', () => {
  let server: http.Server;
  let url: string;

  before(async () => {
    // The validator as the app installs it, answering which operation its own lookup found.
    const app = express();
    useRequestValidation(app, buildOpenApi(routes, { title: 'routes', version: '0' }));
    const found = (req: Request, res: Response) => res.json({ operation: (req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute ?? null });
    app.use(found);
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    app.use((_error: unknown, req: Request, res: Response, _next: NextFunction) => found(req, res));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => { await new Promise((resolve) => server.close(resolve)); });

  it('[S1.0-01] the validator takes the exact path of every route for the operation the route table matched', async () => {
    const wrong: string[] = [];
    for (const r of routes) {
      const answer = await rawRequest(url, r.method.toUpperCase(), canonicalPath(r));
      const operation = JSON.parse(answer.text).operation;
      if (operation !== `/api/v1${r.path}`) wrong.push(`${r.method} ${canonicalPath(r)}: validator ${operation}, table /api/v1${r.path}`);
    }
    expect(wrong).to.deep.equal([]);
  });
});
