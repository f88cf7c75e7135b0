/**
 * The API explorer's page: a sign-in form (account name and password, or a token or key pasted in)
 * and the place Swagger UI draws the document into. No inline script or style: the page loads
 * its script and styles from Vigil (explorer/script.ts), as the Content-Security-Policy demands.
 */
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function explorerHtml(brand: string, base: string): string {
  const b = escape(brand);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${b} API explorer</title>
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png">
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="stylesheet" href="${base}/explorer.css">
</head><body>
<header class="vigil-bar"><h1>${b} API explorer</h1>
<p>The OpenAPI document is at <a href="/v3/api-docs">/v3/api-docs</a>; it needs a credential unless the installation allows anonymous reading.</p></header>
<main>
<form id="vigil-sign-in" class="vigil-sign-in" autocomplete="on">
  <fieldset><legend>Sign in with an account</legend>
    <label>Account name <input name="username" autocomplete="username" maxlength="200"></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" maxlength="1000"></label>
  </fieldset>
  <fieldset><legend>or use a bearer token</legend>
    <label>Session token or API key <input name="token" type="password" autocomplete="off" maxlength="1000" placeholder="vgl_..."></label>
  </fieldset>
  <button type="submit">Open the API</button>
  <p id="vigil-status" role="status" aria-live="polite"></p>
</form>
<div id="swagger-ui"></div>
</main>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/explorer.js"></script>
</body></html>`;
}

export const EXPLORER_CSS = `
.vigil-bar{font-family:system-ui,sans-serif;padding:.5rem 1.5rem;border-bottom:1px solid #ddd}
.vigil-bar h1{font-size:1.4rem;margin:.3rem 0}
.vigil-sign-in{font-family:system-ui,sans-serif;display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-end;padding:1rem 1.5rem}
.vigil-sign-in fieldset{border:1px solid #ccc;padding:.5rem 1rem}
.vigil-sign-in label{display:block;margin:.3rem 0}
.vigil-sign-in input{display:block;min-width:16rem;padding:.3rem}
.vigil-sign-in button{padding:.5rem 1rem}
.vigil-signed-in .vigil-sign-in fieldset{display:none}
#vigil-status{flex-basis:100%;margin:0}
`;
