import * as net from 'node:net';
import { loadConfig } from '../../infrastructure/config/config';
import { compose, prepare } from '../../interfaces/composition/root';
import { streams } from '../../domain/shared/streams';
import { benchDatabase } from '../bench/support';

async function main() {
  const { db, drop } = await benchDatabase(10);
  let frames = 0;
  const server = net.createServer((s) => { s.on('data', (c) => { frames += c.length; }); s.on('end', () => s.end()); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const services = compose(loadConfig({ VIGIL_LOG_LEVEL: 'error', VIGIL_DATA_DIR: '/nonexistent', VIGIL_SIEM_HOSTNAME: 'vigil-bench' }), { database: db });
  await prepare(services);
  const ctx = { actor: null, address: '127.0.0.1', userAgent: 'bench', now: new Date() };
  await services.settings.change(ctx, ['administrator'], { siem_allow_private_destination: true });
  await services.siem.configure(ctx, ['administrator'], { enabled: true, protocol: 'syslog_tcp', endpoint: `127.0.0.1:${port}`, minimumSeverity: 'high' });
  const N = Number(process.env.N ?? 20000);
  for (let i = 0; i < N; i += 1000) {
    const events = Array.from({ length: 1000 }, (_, j) => ({ type: 'BearerFailureCeilingReached', data: { address: `198.51.100.${(i + j) % 250}` } }));
    await services.commands.appendAll([{ stream: streams.bearerFailures, events, expectedRevision: 'any' }], ctx);
  }
  await services.projections.catchUp();
  const outbox: any = (services as any).siemOutbox;
  const d: any = services.siemDeliverer;
  const t: Record<string, number> = {};
  const wrap = (obj: any, name: string, label = name) => { const f = obj[name].bind(obj); obj[name] = async (...a: any[]) => { const s = performance.now(); try { return await f(...a); } finally { t[label] = (t[label] ?? 0) + performance.now() - s; } }; };
  wrap(outbox, 'fresh'); wrap(outbox, 'mark'); wrap(outbox, 'retriesDue'); wrap(d.transport, 'send'); wrap(d.lease, 'acquire');
  const fmt = d.message.bind(d); let fmtMs = 0; d.message = (r: any) => { const s = performance.now(); const m = fmt(r); fmtMs += performance.now() - s; return m; };
  const cpu0 = process.cpuUsage(); const s = performance.now();
  const sum = await d.drain();
  const wall = performance.now() - s; const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ sum, wall: Math.round(wall), nodeCpu: Math.round((cpu.user + cpu.system) / 1000), fmtMs: Math.round(fmtMs), phases: Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)])) }));
  server.close(); await drop(); process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });
