import { randomUUID } from 'node:crypto';
import { NextFunction, Response } from 'express';
import { VigilRequest } from '../route';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A caller's (or a proxy's) X-Request-Id is kept when it is a plain token of at most 128
 * characters, so that one id follows a request through the proxy's log and ours; anything else
 * (too long, spaces, control characters, quotes: text that could forge or break a log line) is
 * replaced by a fresh UUID, never echoed. X-Correlation-Id, which some gateways send instead, is
 * taken under the same rule when no X-Request-Id comes. The id is also the correlationId of the
 * events the request appends (auth.ts), so a log line leads to the events and back.
 */
const ACCEPTED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestId() {
  return (req: VigilRequest, res: Response, next: NextFunction) => {
    const offered = req.headers['x-request-id'] ?? req.headers['x-correlation-id'];
    const id = typeof offered === 'string' && ACCEPTED.test(offered) ? offered : randomUUID();
    req.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}
