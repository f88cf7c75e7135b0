import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { createHash } from 'node:crypto';
import { DomainError } from '../../../domain/shared/decider';
import { AuditQueries } from '../../../projections/audit/queries';
import { RouteDef, VigilRequest } from '../route';
import { MAX_ROW_ID, RowId } from '../row-id';
import { Services } from '../services';
import { setSignatureHeaders } from '../signature-headers';
import { Text } from '../text';

const auditors = { sessionOnly: true, roles: ['auditor', 'administrator', 'ciso'] as const, rolesDetail: 'The audit log is read by auditors, administrators and CISOs.' };

/** The hash-chained audit log (every security event) and its verification. */
export function auditRoutes(s: Services): RouteDef[] {
  const audit = new AuditQueries(s.db);
  return [
    {
      method: 'get', path: '/audit-log', tag: 'Audit', summary: 'Audit entries in chain order; operation, type, actor, target (stream), since and until filters; limit and after page through them', auth: auditors,
      query: Type.Object({
        type: Type.Optional(Text({ max: 128 })), operation: Type.Optional(Text({ max: 128 })), actor: Type.Optional(RowId()), target: Type.Optional(Text({ max: 600 })),
        since: Type.Optional(Text({ max: 40, format: 'date-time' })), until: Type.Optional(Text({ max: 40, format: 'date-time' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID })),
      }),
      responses: { 200: { description: 'Entries' } },
      handler: async (req: VigilRequest, res: Response) => {
        const q = req.query as Record<string, string | undefined>;
        const limit = Number(q.limit ?? 100);
        const filter = { type: q.type, operation: q.operation, actor: q.actor === undefined ? undefined : Number(q.actor), target: q.target, since: q.since, until: q.until };
        const page = await audit.list(Number(q.after ?? 0), limit, filter);
        if (page.next !== null) {
          const kept = Object.entries({ ...filter, actor: q.actor }).filter(([, value]) => value !== undefined).map(([k, value]) => `&${k}=${encodeURIComponent(String(value))}`).join('');
          res.setHeader('Link', `</api/v1/audit-log?limit=${limit}${kept}&after=${page.next}>; rel="next"`);
        }
        return page.items;
      },
    },
    {
      method: 'get', path: '/audit-log/head', tag: 'Audit', summary: 'The newest entry\'s seq, hash, position and time: keep it elsewhere to detect a removal of the newest entries', auth: auditors,
      responses: { 200: { description: '{seq, hash, position, at}; signed with the platform key (Vigil-Signature, as exports are) once one can be used' } },
      // The head signed by the platform key proves later that entries after it existed: an
      // auditor who keeps it detects a truncation of the newest entries (issue #13). Without a
      // usable key (no ENCRYPTION_KEY and no VIGIL_SIGNING_KEY) the head is answered unsigned.
      handler: async (_req: VigilRequest, res: Response) => {
        // The key first: generating it on first use is itself an audited event the head then names.
        const key = await s.platformKeys.current().catch((error: unknown) => {
          if (error instanceof DomainError) return null;
          throw error;
        });
        const bytes = Buffer.from(JSON.stringify(await audit.head()), 'utf8');
        if (key) {
          const signer = key.signer();
          signer.update(bytes);
          setSignatureHeaders(res, { sha256: createHash('sha256').update(bytes).digest('hex'), signature: signer.sign(), fingerprint: key.fingerprint });
        }
        res.status(200).type('application/json').send(bytes);
      },
    },
    {
      method: 'get', path: '/audit-log/verification', tag: 'Audit', summary: 'Recomputes the chain from the events table and compares it with the stored one, entry by entry', auth: auditors,
      // Read-only: the periodic verification (VIGIL_AUDIT_VERIFY_INTERVAL) audits a failure once and signals VGL-SEC-018.
      responses: { 200: { description: '{valid, entries, brokenAt, brokenPosition, differs, reason}' } },
      handler: async () => audit.verify(),
    },
  ];
}
