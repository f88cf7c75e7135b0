import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { answerPage, IdPageQuery, idPageOf } from '../id-paging';
import { RouteDef, takeBody, VigilRequest } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { width } from '../../../domain/shared/column-widths';
import { Text } from '../text';

const governor = { sessionOnly: true, roles: ['platform_governor'] as const, rolesDetail: "Declaring sources is a platform governor's act, from a session." };
const readers = { sessionOnly: true, roles: ['platform_governor', 'administrator', 'auditor', 'ciso'] as const, rolesDetail: 'Sources are listed to platform governors, administrators, CISOs and auditors.' };
const SlugText = Text({ minLength: 1, max: width('sarif_sources.slug') });
const Slug = Type.Object({ slug: SlugText });
const RepoId = Type.Object({ id: RowId() });

/** Declared sources (spec 1 §2.5, §4.4) and SARIF imports (§4.3). */
export function importRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'post', path: '/sarif-sources', tag: 'Sources', summary: 'Declare a source (platform governor, session); the same slug with a new key rotates the key', auth: governor,
      body: Type.Object({
        slug: SlugText, name: Text({ minLength: 1, max: width('sarif_sources.name') }), api_key_id: RowId(),
        project_id: Type.Optional(Type.Union([RowId(), Type.Null()])), repository_id: Type.Optional(Type.Union([RowId(), Type.Null()])),
        // A tool's name also goes into its issues' tool key, import:<slug>/<tool>: the decider bounds the pair (issues.tool_key).
        kinds: Type.Optional(Type.Array(Text({ max: 40 }))), tools: Type.Optional(Type.Array(Text({ minLength: 1, max: 200 }))),
      }, { additionalProperties: false }),
      responses: { 201: { description: 'Declared (or redeclared)' }, 400: { description: 'Invalid' }, 409: { description: 'The key names another source' } },
      handler: async (req: VigilRequest, res: Response) => { res.status(201); return s.sources.declare(req.ctx!, req.body); },
    },
    {
      method: 'get', path: '/sarif-sources', tag: 'Sources', summary: 'Declared sources with the state of their key (a revoked key shows as revoked), by id; limit and after page through them (Link)', auth: readers, query: IdPageQuery,
      responses: { 200: { description: 'Sources' } },
      handler: async (req, res) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/sarif-sources', page, await s.sourceQueries.page(page.limit, page.after));
      },
    },
    {
      method: 'post', path: '/sarif-sources/{slug}/disable', tag: 'Sources', summary: 'Disable a source: its imports stop', auth: governor, params: Slug,
      responses: { 200: { description: 'Disabled' } }, handler: async (req) => s.sources.change(req.ctx!, String(req.params.slug), 'DisableSource'),
    },
    {
      method: 'post', path: '/sarif-sources/{slug}/enable', tag: 'Sources', summary: 'Enable a disabled source', auth: governor, params: Slug,
      responses: { 200: { description: 'Enabled' } }, handler: async (req) => s.sources.change(req.ctx!, String(req.params.slug), 'EnableSource'),
    },
    {
      method: 'delete', path: '/sarif-sources/{slug}', tag: 'Sources', summary: 'Remove a source; its imported issues stay under the slug', auth: governor, params: Slug,
      responses: { 204: { description: 'Removed' } }, handler: async (req) => { await s.sources.change(req.ctx!, String(req.params.slug), 'RemoveSource'); },
    },
    {
      method: 'post', path: '/repositories/{id}/sarif-imports', tag: 'Imports', summary: 'Import a SARIF 2.1.0 log from a declared source (integration key, scope sarif_import)',
      auth: { handlerDecides: true }, params: RepoId, bodyLimit: 'sarifImport', rawBody: ['application/sarif+json', 'application/json'],
      responses: { 201: { description: 'Accepted: resultsCount, createdCount, resolvedCount, reopenedCount, tools, sha256' }, 400: { description: 'Not acceptable SARIF' }, 403: { description: 'Key, source or tool not allowed' }, 404: { description: 'Repository unseen or outside scope' }, 413: { description: 'Over 32 MB' } },
      handler: async (req, res) => {
        const result = await s.sarifImports.import(req.ctx!, req.principal!, Number(req.params.id), takeBody(req));
        res.status(201);
        return result;
      },
    },
    {
      method: 'get', path: '/repositories/{id}/sarif-imports', tag: 'Imports', summary: 'The latest 50 SARIF imports of a repository, newest first', auth: { scope: 'read' }, params: RepoId,
      responses: { 200: { description: 'Imports' } },
      handler: async (req) => {
        await s.targets.visibleRow(req.principal!, 'repository', Number(req.params.id));
        return s.importQueries.sarif.history(Number(req.params.id));
      },
    },
  ];
}
