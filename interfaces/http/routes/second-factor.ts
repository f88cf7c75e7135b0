import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { SecondFactorRefused } from '../../../application/identity/second-factor-service';
import { HttpProblem } from '../problem';
import { RouteDef } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { Text } from '../text';

const tag = 'Second factor';
const admin = { roles: ['administrator'] as const, sessionOnly: true, rolesDetail: 'Only an administrator resets a second factor.' };
const Code = Text({ minLength: 1, max: 32 });

/**
 * The local second factor (issue #14; docs/identity-providers.md): TOTP enrolment by the account
 * itself, the sign-in challenge answered with a code or a backup code, an administrator's reset.
 */
export function secondFactorRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'get', path: '/me/second-factor', tag, summary: "The caller's second factor: none, pending (begun, not confirmed) or active, and the backup codes left", auth: { sessionOnly: true },
      responses: { 200: { description: 'State', schema: Type.Object({ status: Type.String(), backupCodesLeft: Type.Integer() }) } },
      handler: async (req) => s.secondFactorQueries.of(req.principal!.accountId),
    },
    {
      method: 'post', path: '/me/second-factor', tag, summary: 'Begin a TOTP enrolment: answers the secret and its otpauth:// URI (for a QR code), once; sealed under ENCRYPTION_KEY', auth: { sessionOnly: true },
      responses: { 201: { description: 'Begun', schema: Type.Object({ secret: Type.String(), otpauthUri: Type.String() }) }, 409: { description: 'Already enrolled, or no ENCRYPTION_KEY' } },
      handler: async (req, res: Response) => {
        res.setHeader('Cache-Control', 'no-store');
        res.status(201);
        return s.secondFactors.begin(req.ctx!, req.principal!);
      },
    },
    {
      method: 'post', path: '/me/second-factor/confirmation', tag, summary: 'Confirm the enrolment with a current code: answers ten single-use backup codes, once', auth: { sessionOnly: true },
      body: Type.Object({ code: Code }, { additionalProperties: false }),
      responses: { 200: { description: 'Enrolled', schema: Type.Object({ backupCodes: Type.Array(Type.String()) }) }, 400: { description: 'Wrong code' }, 409: { description: 'No enrolment under way' } },
      handler: async (req, res: Response) => {
        res.setHeader('Cache-Control', 'no-store');
        return s.secondFactors.confirm(req.ctx!, req.principal!, req.body.code);
      },
    },
    {
      method: 'post', path: '/auth/second-factor', tag, auth: 'public', bodyLimit: 'signIn',
      summary: "Answer a sign-in's second-factor challenge with a TOTP code or a backup code (VGL-SEC-006); wrong codes past VIGIL_SECOND_FACTOR_FAILURES destroy it (VGL-SEC-008)",
      body: Type.Object({ challenge: Text({ minLength: 1, max: 100 }), code: Type.Optional(Code), backupCode: Type.Optional(Code) }, { additionalProperties: false }),
      responses: { 200: { description: 'Signed in' }, 400: { description: 'Neither or both of code and backupCode' }, 401: { description: 'Wrong code, or the challenge unknown, expired or destroyed' } },
      handler: async (req) => {
        const { challenge, code, backupCode } = req.body as { challenge: string; code?: string; backupCode?: string };
        if ((code === undefined) === (backupCode === undefined)) throw new HttpProblem(400, 'Bad Request', 'Send either code or backupCode.');
        try {
          return await s.secondFactors.verify(req.ctx!, challenge, { code, backupCode });
        } catch (error) {
          if (!(error instanceof SecondFactorRefused)) throw error;
          throw new HttpProblem(401, 'Unauthorized', error.message, error.destroyed ? 'second-factor-challenge-ended' : 'second-factor-wrong-code');
        }
      },
    },
    {
      method: 'delete', path: '/accounts/{id}/second-factor', tag, summary: "Reset an account's second factor (administrator; audited, VGL-SEC-010)", auth: admin,
      params: Type.Object({ id: RowId() }),
      responses: { 204: { description: 'Reset' }, 404: { description: 'No second factor' } },
      handler: async (req) => { await s.secondFactors.reset(req.ctx!, Number(req.params.id)); },
    },
  ];
}
