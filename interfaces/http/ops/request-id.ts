import { randomUUID } from 'node:crypto';
import { NextFunction, Response } from 'express';
import { VigilRequest } from '../route';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A caller's (or a proxy's) X-Request-Id is kept when it is a plain token of at most 128
 * characters, so that one id follows a request through the proxy's log and ours; anything else
 * (too long, spaces, control characters, quotes: text that could forge or break a log line) is
 * replaced by a fresh UUID, never echoed.
 */
const ACCEPTED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestId() {
  return (req: VigilRequest, res: Response, next: NextFunction) => {
    const offered = req.headers['x-request-id'];
    const id = typeof offered === 'string' && ACCEPTED.test(offered) ? offered : randomUUID();
    req.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}
