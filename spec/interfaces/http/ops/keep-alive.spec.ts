import { expect } from 'chai';
import * as net from 'node:net';
import { RunningVigil, startVigil } from '../../../support/vigil';

/**
 * Issue #15, running as a service: an idle kept-alive connection outlives the usual proxy idle
 * timeout (60 s), so a reused connection is never closed under a request that is just being sent.
 */
describe('HTTP keep-alive (VIGIL_HTTP_KEEP_ALIVE_TIMEOUT)', function () {
  this.timeout(60_000);
  const started: RunningVigil[] = [];
  after(async () => { for (const v of started) await v.stop(); });

  /** The raw head of one answer on a connection that asks to be kept alive. */
  async function rawHead(url: string): Promise<string> {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let text = '';
    const head = new Promise<string>((resolve) => socket.on('data', (d) => { text += d; if (text.includes('\r\n\r\n')) resolve(text.split('\r\n\r\n')[0]); }));
    socket.write('GET /api/v1/health HTTP/1.1\r\nHost: vigil\r\nConnection: keep-alive\r\n\r\n');
    const answer = await head;
    socket.destroy();
    return answer;
  }

  it('[#15] keeps an idle connection 65 s by default and says so in Keep-Alive', async () => {
    const v = await startVigil();
    started.push(v);
    const head = await rawHead(v.url);
    expect(head).to.match(/^HTTP\/1\.1 200/);
    expect(head.toLowerCase()).to.include('keep-alive: timeout=65');
  });

  it('[#15] takes another idle timeout from the setting', async () => {
    const v = await startVigil({ env: { VIGIL_HTTP_KEEP_ALIVE_TIMEOUT: '90s' } });
    started.push(v);
    expect((await rawHead(v.url)).toLowerCase()).to.include('keep-alive: timeout=90');
  });
});
