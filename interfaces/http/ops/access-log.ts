import { NextFunction, Response } from 'express';
import { VigilRequest } from '../route';
import { routeLabel } from './route-label';

export interface AccessLogLine {
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  address?: string;
  bytes?: number;
  /** The client went away before the answer was sent. */
  aborted?: boolean;
}

export interface Finished { req: VigilRequest; line: AccessLogLine; seconds: number }

/**
 * One line per request, written when the answer has been sent (or the client left): request id,
 * method, route template, status, duration. Listeners (the metrics) get the same measurement.
 */
export function accessLog(log: { info: (msg: string, meta?: unknown) => void }, listeners: ((f: Finished) => void)[] = []) {
  return (req: VigilRequest, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    let done = false;
    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const length = Number(res.getHeader('content-length'));
      const line: AccessLogLine = {
        requestId: req.requestId ?? '', method: req.method, route: routeLabel(req), status: res.statusCode,
        durationMs: Math.round(seconds * 10_000) / 10, address: req.clientAddress,
        ...(Number.isFinite(length) ? { bytes: length } : {}), ...(aborted ? { aborted: true } : {}),
      };
      log.info('request', line);
      for (const listener of listeners) listener({ req, line, seconds });
    };
    res.once('finish', () => finish(false));
    res.once('close', () => finish(!res.writableFinished));
    next();
  };
}
