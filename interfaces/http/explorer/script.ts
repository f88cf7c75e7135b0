/**
 * The explorer's browser script, served as /api/v1/explorer/explorer.js (a file, not inline, so the
 * page runs under a CSP without 'unsafe-inline'). It signs in (or takes a pasted token), fetches the
 * OpenAPI document with that bearer token, and hands it to Swagger UI with the token already
 * authorised, so "Try it out" calls the API as the signed-in account. The token stays in this page's
 * memory only: a reload signs out.
 */
export const EXPLORER_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('vigil-sign-in');
  var status = document.getElementById('vigil-status');
  function say(text) { status.textContent = text; }
  async function signIn(data) {
    var token = (data.get('token') || '').trim();
    if (token) return token;
    var answer = await fetch('/api/v1/auth/sign-in', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: data.get('username') || '', password: data.get('password') || '' })
    });
    var body = await answer.json().catch(function () { return {}; });
    if (!answer.ok) throw new Error('Sign-in refused (' + answer.status + '): ' + (body.detail || 'no reason given.'));
    return body.token;
  }
  async function loadDocument(token) {
    var answer = await fetch('/v3/api-docs', { headers: { authorization: 'Bearer ' + token } });
    if (answer.status === 404) throw new Error('The OpenAPI document is switched off here (VIGIL_API_DOCS_ENABLED).');
    if (answer.status === 401) throw new Error('This token is not accepted (signed out, expired or revoked).');
    if (!answer.ok) throw new Error('The document could not be read (' + answer.status + ').');
    return answer.json();
  }
  form.addEventListener('submit', async function (event) {
    event.preventDefault();
    say('Signing in...');
    try {
      var token = await signIn(new FormData(form));
      var doc = await loadDocument(token);
      form.reset();
      var ui = SwaggerUIBundle({
        spec: doc, dom_id: '#swagger-ui', deepLinking: false, persistAuthorization: false,
        displayRequestDuration: true, tryItOutEnabled: false, validatorUrl: null, docExpansion: 'none'
      });
      ui.preauthorizeApiKey('bearer', token);
      document.body.classList.add('vigil-signed-in');
      say('Signed in. Use "Authorize" to change the credential; reloading the page signs out of the explorer.');
    } catch (error) {
      say(error.message);
    }
  });
})();
`;
