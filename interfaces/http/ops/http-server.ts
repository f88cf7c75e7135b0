import * as http from 'node:http';
import { RequestListener } from 'node:http';
import { OpsSettings } from '../../../infrastructure/config/ops-settings';

/**
 * The HTTP server every Vigil process answers with (the service and the test harness alike), so that
 * its connection timeouts are the same wherever it runs. Node's default keeps an idle connection
 * 5 s, shorter than the proxies in front of it and close to a busy client's reuse of the socket:
 * the server's close and the client's next request then cross and the request is reset. The
 * header timeout must stay above the keep-alive timeout (Node's own rule) for the same reason.
 */
export function createHttpServer(app: RequestListener, ops: Pick<OpsSettings, 'keepAliveTimeoutMs'>): http.Server {
  const server = http.createServer(app);
  server.keepAliveTimeout = ops.keepAliveTimeoutMs;
  server.headersTimeout = ops.keepAliveTimeoutMs + 1_000;
  return server;
}
