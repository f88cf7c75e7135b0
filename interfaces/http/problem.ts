import { NextFunction, Request, Response } from 'express';
import { HttpRefusal } from '../../application/imports/refusal';
import { DomainError } from '../../domain/shared/decider';
import { formatSize } from '../../infrastructure/config/units';
import { describeValidation, ValidatorErrorItem } from './validation-detail';

/**
 * Errors are application/problem+json with a detail written for a person (spec 1 §7). A type
 * urn:vigil:problem:<name> appears only where §7 names one; other refusals carry none, so a
 * client decides on the status.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly problemType?: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
  410: 'Gone', 412: 'Precondition Failed', 413: 'Content Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

const KIND_STATUS: Record<DomainError['kind'], number> = { invalid: 400, forbidden: 403, not_found: 404, conflict: 409, gone: 410 };

export const problem = {
  badRequest: (detail: string, ext?: Record<string, unknown>) => new HttpProblem(400, TITLES[400], detail, undefined, ext),
  unauthorized: () => new HttpProblem(401, TITLES[401], 'A valid credential is required.', undefined, {}, { 'WWW-Authenticate': 'Bearer' }),
  forbidden: (detail: string) => new HttpProblem(403, TITLES[403], detail),
  notFound: (detail: string) => new HttpProblem(404, TITLES[404], detail),
  conflict: (detail: string, type?: string, ext?: Record<string, unknown>) => new HttpProblem(409, TITLES[409], detail, type, ext),
  tooMany: (detail: string, retryAfterSeconds: number) => new HttpProblem(429, TITLES[429], detail, undefined, {}, { 'Retry-After': String(retryAfterSeconds) }),
};

export function sendProblem(res: Response, p: HttpProblem): void {
  for (const [k, v] of Object.entries(p.headers)) res.setHeader(k, v);
  const body: Record<string, unknown> = { title: p.title, status: p.status, detail: p.detail, ...p.extensions };
  if (p.problemType) body.type = `urn:vigil:problem:${p.problemType}`;
  res.status(p.status).type('application/problem+json').send(JSON.stringify(body));
}

interface ValidatorError { status?: number; errors?: ValidatorErrorItem[]; message?: string }

/** The last middleware: every error becomes a problem document; 500s are logged, never detailed. */
export function problemHandler(log: { error: (msg: string, meta?: unknown) => void }) {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) return;
    if (error instanceof HttpProblem) return sendProblem(res, error);
    if (error instanceof DomainError) {
      const status = KIND_STATUS[error.kind];
      return sendProblem(res, new HttpProblem(status, TITLES[status], error.message, error.problemType, error.extensions));
    }
    if (error instanceof HttpRefusal) return sendProblem(res, new HttpProblem(error.status, TITLES[error.status] ?? 'Refused', error.message));
    const e = error as { type?: string; status?: number; limit?: number; message?: string; errors?: unknown[] } & ValidatorError;
    if (e?.type === 'entity.too.large') {
      const limit = (req as Request & { bodyLimit?: { bytes: number; setting: string } }).bodyLimit;
      return sendProblem(res, new HttpProblem(413, TITLES[413], `The request body is over this route's limit of ${formatSize(limit?.bytes ?? e.limit ?? 0)}${limit ? ` (${limit.setting})` : ''}.`, undefined, { limit: limit?.bytes ?? e.limit }));
    }
    if (e?.type === 'entity.parse.failed') return sendProblem(res, problem.badRequest('The request body is not valid JSON.'));
    if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return sendProblem(res, problem.badRequest(e.message ?? 'Unsupported encoding.'));
    // A body sent with Content-Encoding gzip, deflate or br that does not inflate (zlib's own errors).
    if (typeof (error as { code?: unknown })?.code === 'string' && /^(Z_|ERR_BROTLI)/.test((error as { code: string }).code)) {
      return sendProblem(res, problem.badRequest(`The request body does not decode as its Content-Encoding (${req.headers['content-encoding'] ?? 'none'}) says.`));
    }
    if (typeof e?.status === 'number' && Array.isArray(e.errors)) {
      if (e.status === 404) return sendProblem(res, problem.notFound(`No route ${req.method} ${req.path}.`));
      if (e.status === 405) return sendProblem(res, new HttpProblem(405, TITLES[405], `${req.method} is not allowed on ${req.path}.`));
      if (e.status === 415) return sendProblem(res, new HttpProblem(415, TITLES[415], `Content type ${req.headers['content-type'] ?? '(none)'} is not accepted here.`));
      return sendProblem(res, problem.badRequest(describeValidation(e.errors as ValidatorErrorItem[], req, e.message), { errors: e.errors }));
    }
    log.error('Unhandled error', { error: (error as Error)?.stack ?? String(error), method: req.method, path: req.path, requestId: (req as Request & { requestId?: string }).requestId });
    sendProblem(res, new HttpProblem(500, TITLES[500], 'Something went wrong on our side; it has been logged.'));
  };
}
