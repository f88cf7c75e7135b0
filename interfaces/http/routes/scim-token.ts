import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { RouteDef } from '../route';
import { Services } from '../services';

const tag = 'SCIM';
const admin = { roles: ['administrator'] as const, sessionOnly: true, rolesDetail: 'Only an administrator manages the SCIM token.' };

/** The SCIM token (issue #14): its own credential kind, the bearer of /scim/v2 only. */
export function scimTokenRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'post', path: '/admin/scim-token', tag, summary: 'Issue the SCIM token (administrator): answered once as {token}; replaces any earlier one', auth: admin,
      responses: { 201: { description: 'Issued', schema: Type.Object({ token: Type.String() }) } },
      handler: async (req, res: Response) => {
        res.setHeader('Cache-Control', 'no-store');
        res.status(201);
        return { token: await s.scim.issueToken(req.ctx!) };
      },
    },
    {
      method: 'delete', path: '/admin/scim-token', tag, summary: 'Revoke the SCIM token (administrator)', auth: admin,
      responses: { 204: { description: 'Revoked' } },
      handler: async (req) => { await s.scim.revokeToken(req.ctx!); },
    },
  ];
}
