import { expect } from 'chai';
import { ADMIN, startVigil } from '../../support/vigil';

describe('Password login switch', function () {
  it('[S1.5-18] [S1.8.3-25] VIGIL_PASSWORD_LOGIN=false refuses password sign-in when an issuer is set (the bootstrap account alone still recovers, issue #14)', async () => {
    const v = await startVigil({ env: { VIGIL_OIDC_ISSUER: 'https://idp.example', VIGIL_OIDC_CLIENT_ID: 'vigil', VIGIL_OIDC_CLIENT_SECRET: 'secret', VIGIL_PASSWORD_LOGIN: 'false' } });
    try {
      const admin = await v.request('POST', '/auth/sign-in', { body: ADMIN });
      expect(admin.status).to.equal(200);
      const created = await v.request('POST', '/accounts', { token: admin.body.token, body: { username: 'other', password: 'a-long-enough-password', roles: ['administrator'] } });
      expect(created.status).to.equal(201);
      const r = await v.request('POST', '/auth/sign-in', { body: { username: 'other', password: 'a-long-enough-password' } });
      expect(r.status).to.equal(403);
      expect(r.body.detail).to.match(/single sign-on/);
    } finally {
      await v.stop();
    }
  });

  it('[S1.5-18] ignores VIGIL_PASSWORD_LOGIN=false while no issuer is set', async () => {
    const v = await startVigil({ env: { VIGIL_PASSWORD_LOGIN: 'false' } });
    try {
      expect((await v.request('POST', '/auth/sign-in', { body: ADMIN })).status).to.equal(200);
    } finally {
      await v.stop();
    }
  });
});
