import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { ENDPOINT_MAX, PROTOCOLS } from '../../../domain/siem/endpoint';
import { MINIMUM_SEVERITIES } from '../../../domain/siem/signatures';
import { RouteDef, VigilRequest } from '../route';
import { MAX_ROW_ID } from '../row-id';
import { Services } from '../services';
import { Text } from '../text';

const configurers = { sessionOnly: true, roles: ['administrator', 'security_lead'] as const, rolesDetail: 'The SIEM export is configured and tested by an administrator or a security lead.' };
const admins = { sessionOnly: true, roles: ['administrator'] as const, rolesDetail: 'The SIEM outbox is read by an administrator.' };

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));
const STATUSES = ['pending', 'retrying', 'delivered', 'failed', 'abandoned', 'below_minimum'] as const;

/** The SIEM export (spec 2 §4.5; names in docs/siem.md): configuration, connection test, the outbox. */
export function siemRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'get', path: '/siem/config', tag: 'SIEM', summary: 'The SIEM export configuration (never the Authorization header; authorizationSet says whether one is stored)', auth: configurers,
      responses: { 200: { description: 'The configuration, and the administrator-only siem_allow_private_destination setting' } },
      handler: async () => s.siem.view(),
    },
    {
      method: 'put', path: '/siem/config', tag: 'SIEM', summary: 'Configure the SIEM export; switching off or redirecting first sends VGL-SEC-028 to the collector being left', auth: configurers,
      body: Type.Object({
        enabled: Type.Boolean(),
        protocol: literals(PROTOCOLS),
        endpoint: Text({ minLength: 1, max: ENDPOINT_MAX }),
        authorization: Type.Optional(Text({ max: 4096 })),
        tlsCaPem: Type.Optional(Text({ max: 16384, multiline: true })),
        minimumSeverity: Type.Optional(literals(MINIMUM_SEVERITIES)),
      }, { additionalProperties: false }),
      responses: { 200: { description: 'The configuration as stored' }, 400: { description: 'Malformed endpoint, CA or a field of another protocol; a private destination while the switch is off' }, 409: { description: 'An Authorization header without ENCRYPTION_KEY' } },
      handler: async (req: VigilRequest) => s.siem.configure(req.ctx!, req.principal!.roles, req.body),
    },
    {
      method: 'post', path: '/siem/test', tag: 'SIEM', summary: 'Sends VGL-SEC-999 to the configured collector now, whatever the minimum severity; answers whether it arrived', auth: configurers,
      responses: { 200: { description: '{arrived, error, externalId}' }, 409: { description: 'Not configured' } },
      handler: async (req: VigilRequest) => s.siem.test(req.ctx!),
    },
    {
      method: 'get', path: '/siem/outbox', tag: 'SIEM', summary: 'Queued SIEM events and their delivery state, newest first (failed ones stay visible)', auth: admins,
      query: Type.Object({
        status: Type.Optional(literals(STATUSES)),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
        before: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROW_ID })),
      }),
      responses: { 200: { description: 'Outbox rows' } },
      handler: async (req: VigilRequest, res: Response) => {
        const q = req.query as Record<string, string | undefined>;
        const limit = Number(q.limit ?? 100);
        const page = await s.siemOutbox.list({ status: q.status as never, before: q.before === undefined ? undefined : Number(q.before) }, limit);
        if (page.next !== null) res.setHeader('Link', `</api/v1/siem/outbox?limit=${limit}${q.status ? `&status=${q.status}` : ''}&before=${page.next}>; rel="next"`);
        return page.items;
      },
    },
  ];
}
