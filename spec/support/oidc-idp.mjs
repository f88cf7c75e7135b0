// A real OpenID Connect provider (node-oidc-provider) on a loopback port, for the single sign-on
// specs: real discovery, real signed ID tokens, PKCE required. Started as a child process by
// spec/support/oidc.ts (oidc-provider is an ES module; the specs are CommonJS). It prints one line
// of JSON, {"issuer": ...}, once it listens.
//
// The interaction (the provider's login page) is the test's hand: GET /interaction/<uid>?login=<sub>
// &amr=pwd,otp&acr=<value> signs <sub> in with those authentication methods and consents at once,
// so that a spec drives the whole browser flow with plain HTTP requests, cookies and redirects.
import http from 'node:http';
import Provider from 'oidc-provider';

const clients = JSON.parse(process.env.IDP_CLIENTS);
const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  pkce: { required: () => true },
  cookies: { keys: ['spec-only-cookie-key'] },
  claims: { openid: ['sub', 'acr', 'amr'], profile: ['preferred_username', 'name'], email: ['email'] },
  acrValues: ['urn:example:loa:low', 'urn:example:loa:high'],
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, preferred_username: sub, name: `User ${sub}`, email: `${sub}@example.test` }),
  }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: { devInteractions: { enabled: false } },
  ttl: { Interaction: 600, Session: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
});
// Vigil listens on a port chosen at start: any loopback port is a registered redirect.
const allowed = provider.Client.prototype.redirectUriAllowed;
provider.Client.prototype.redirectUriAllowed = function (value) {
  try {
    const url = new URL(value);
    const registered = this.redirectUris.map((u) => new URL(u));
    if (url.hostname === '127.0.0.1' && registered.some((r) => r.hostname === '127.0.0.1' && r.pathname === url.pathname)) return true;
  } catch { /* not a URL */ }
  return allowed.call(this, value);
};

const handle = provider.callback();
server.on('request', async (req, res) => {
  const url = new URL(req.url, issuer);
  if (!url.pathname.startsWith('/interaction/')) return handle(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    const accountId = url.searchParams.get('login');
    if (!accountId) { res.statusCode = 400; res.end('login= is required'); return; }
    const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope));
    const amr = url.searchParams.get('amr');
    const acr = url.searchParams.get('acr');
    const result = {
      login: { accountId, ...(amr ? { amr: amr.split(',') } : {}), ...(acr ? { acr } : {}) },
      consent: { grantId: await grant.save() },
    };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error && error.stack));
  }
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
