import { Response } from 'express';
import { RouteDef } from '../route';
import { Services } from '../services';

/** Exports and the platform key (spec 1 §1.9, issue #11; docs/exports.md). */
export function exportRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'get', path: '/crypto/public-key.pub', tag: 'Exports', auth: 'public',
      summary: 'The public half of the platform signing key (ECDSA P-256, SubjectPublicKeyInfo PEM): verify exports with it; no credential needed',
      responses: { 200: { description: 'PEM' }, 409: { description: 'No key can be used: ENCRYPTION_KEY unset, or the stored key cannot be opened' } },
      handler: async (_req, res: Response) => {
        const key = await s.platformKeys.current();
        res.setHeader('Vigil-Key-Fingerprint', `sha256:${key.fingerprint}`);
        res.status(200).type('application/x-pem-file').send(key.publicKeyPem);
      },
    },
  ];
}
