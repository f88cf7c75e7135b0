/**
 * VIGIL_SWAGGER_UI_ENABLED: a page that loads the OpenAPI document from /v3/api-docs and lists
 * the operations. No third-party script is fetched: Vigil runs where the internet may not be.
 */
export function swaggerUiHtml(brand: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${brand} API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}code{background:#eee;padding:0 .3em}li{margin:.3em 0}</style></head>
<body><h1>${brand} API</h1><p>OpenAPI document: <a href="/v3/api-docs">/v3/api-docs</a></p><ul id="ops"></ul>
<script>
fetch('/v3/api-docs',{credentials:'same-origin'}).then(r=>r.json()).then(doc=>{
  const ul=document.getElementById('ops');
  for(const [path,ops] of Object.entries(doc.paths))for(const [m,op] of Object.entries(ops)){
    const li=document.createElement('li');li.innerHTML='<code>'+m.toUpperCase()+' /api/v1'+path+'</code> '+(op.summary||'');ul.appendChild(li);}
}).catch(e=>{document.body.append('Could not load the document: '+e)});
</script></body></html>`;
}
