import { createHash, timingSafeEqual } from 'node:crypto';
import type { VigilMetrics } from '../../../infrastructure/metrics/vigil-metrics';
import { problem } from '../problem';
import { PageHandler, VigilRequest } from '../route';
import { Finished } from './access-log';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics in the Prometheus text format, for a scraper holding VIGIL_METRICS_TOKEN as its
 * bearer token (compared in constant time); no Vigil account or key is involved, and without the
 * setting the page does not exist (404).
 */
export function metricsPage(metrics: VigilMetrics, token: string): PageHandler {
  const expected = digest(token);
  return async (req: VigilRequest, res) => {
    const header = req.headers.authorization ?? '';
    const offered = /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : '';
    if (!offered || !timingSafeEqual(digest(offered), expected)) throw problem.unauthorized();
    const { contentType, text } = await metrics.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(text);
  };
}

/** The access log's measurement of each request, fed to the HTTP and import metrics. */
export function requestMetrics(metrics: VigilMetrics) {
  return ({ req, line, seconds }: Finished) => {
    const length = Number(req.headers['content-length']);
    metrics.observeRequest({ method: line.method, route: line.route, status: line.status, seconds, requestBytes: Number.isFinite(length) ? length : null });
  };
}
