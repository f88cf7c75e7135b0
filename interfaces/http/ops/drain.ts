import * as http from 'node:http';
import { NextFunction, Request, Response } from 'express';

/**
 * Graceful stop for one HTTP server. `middleware()` goes in front of the app: once `drain()` was
 * called every answer says `Connection: close`, so keep-alive clients (proxies, CI runners) open
 * a new connection, to another instance, for their next request. `drain()` stops accepting
 * connections, lets the requests in flight finish and resolves when the last connection closed,
 * or cuts the remaining connections after `timeoutMs`.
 */
export class HttpDrain {
  private draining = false;

  middleware() {
    return (_req: Request, res: Response, next: NextFunction) => {
      // Decided when the answer's head is written: a request that arrived before the stop began
      // is answered after it, and its connection must not be kept open either.
      const writeHead = res.writeHead;
      const drain = this;
      res.writeHead = function (this: Response, ...args: unknown[]) {
        if (drain.draining && !this.headersSent) this.setHeader('Connection', 'close');
        return (writeHead as (...a: unknown[]) => Response).apply(this, args);
      } as Response['writeHead'];
      next();
    };
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Resolves `true` when every request finished in time, `false` when connections had to be cut. */
  drain(server: http.Server, timeoutMs: number): Promise<boolean> {
    this.draining = true;
    return new Promise((resolve) => {
      let inTime = true;
      const timer = setTimeout(() => {
        inTime = false;
        server.closeAllConnections();
      }, timeoutMs);
      // close() stops listening and (Node >= 19) closes idle keep-alive connections now; busy ones
      // close after their answer because of the Connection: close above.
      server.close(() => {
        clearTimeout(timer);
        resolve(inTime);
      });
      server.closeIdleConnections();
    });
  }
}
