import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { webPages, WEB_CSP } from '../../../interfaces/http/web-ui';

/** The server side of the interface without a browser: what it declares from a build's manifest, and without one. */
describe('web interface pages (interfaces/http/web-ui.ts)', () => {
  const answer = async (handler: Function) => {
    const headers: Record<string, string> = {};
    const res: any = {
      statusCode: 200, body: undefined as unknown,
      setHeader(k: string, v: string) { headers[k.toLowerCase()] = v; return res; },
      status(c: number) { res.statusCode = c; return res; },
      type(t: string) { headers['content-type'] = t; return res; },
      send(b: unknown) { res.body = b; return res; },
    };
    await handler({}, res);
    return { status: res.statusCode, headers, body: res.body };
  };

  it('without a build, / says how to build it (503) and declares nothing else', async () => {
    const pages = webPages('Vigil', path.join(os.tmpdir(), 'vigil-no-such-build'));
    expect([...pages.keys()]).to.deep.equal(['/']);
    const r = await answer(pages.get('/')!);
    expect(r.status).to.equal(503);
    expect(String(r.body)).to.include('npm run build');
  });

  it('declares / and exactly the files the manifest lists with a known type; escapes the brand name', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-web-'));
    try {
      fs.writeFileSync(path.join(dir, 'app-AB12.js'), 'export {}');
      fs.writeFileSync(path.join(dir, 'style-CD34.css'), 'body{}');
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'not listed');
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ script: 'app-AB12.js', style: 'style-CD34.css', files: ['app-AB12.js', 'style-CD34.css', 'odd.exe'] }));
      const pages = webPages('<Acme & "Co">', dir);
      expect([...pages.keys()].sort()).to.deep.equal(['/', '/ui/app-AB12.js', '/ui/style-CD34.css']);
      const page = await answer(pages.get('/')!);
      expect(page.headers['content-security-policy']).to.equal(WEB_CSP);
      expect(String(page.body)).to.include('&#60;Acme &#38; &#34;Co&#34;&#62;').and.not.include('<Acme');
      const css = await answer(pages.get('/ui/style-CD34.css')!);
      expect(css.headers['content-type']).to.match(/^text\/css/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
