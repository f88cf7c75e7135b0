import { Request } from 'express';
import { ALLOWED, characters, describeRefused, firstRefused, grouped } from '../../domain/shared/text';
import { kindOfPattern } from './text';

/** One error as express-openapi-validator reports it (the Ajv keyword is in errorCode). */
export interface ValidatorErrorItem { path?: string; message?: string; errorCode?: string }

/**
 * The detail of a 400 from request validation: each field by name (body.name, query.since,
 * body.tools[0]) with what is wrong in plain words. The validator passes on Ajv's message
 * ("must NOT have more than 200 characters", "must match pattern ..."); for the limits of
 * interfaces/http/text.ts the detail says instead how long the value is and which control
 * character it holds and where, reading the value from the request (never echoing it).
 */
export function describeValidation(errors: readonly ValidatorErrorItem[], req: Request, fallback?: string): string {
  const items = [...new Set(telling(errors).map((e) => describeOne(e, req)))];
  return items.length ? `The request is not valid: ${items.join('; ')}.` : fallback ?? 'The request is not valid.';
}

const keyword = (e: ValidatorErrorItem) => (e.errorCode ?? '').replace(/\.openapi\.validation$/, '');

/**
 * The errors worth telling, per path: when a value of the right type breaks a bound (a string too
 * long), the union's other branches ("must be boolean", "must be null") and the summaries (anyOf,
 * propertyNames) only add noise; otherwise a summary gives way to any error beside it.
 */
function telling(errors: readonly ValidatorErrorItem[]): ValidatorErrorItem[] {
  const bound = (e: ValidatorErrorItem) => ['maxLength', 'minLength', 'pattern', 'format', 'maximum', 'minimum', 'maxItems', 'minItems'].includes(keyword(e));
  const summary = (e: ValidatorErrorItem) => ['anyOf', 'oneOf', 'propertyNames', 'if'].includes(keyword(e)) || e.message === 'must be null';
  return errors.filter((e) => {
    const beside = errors.filter((other) => other !== e && other.path === e.path);
    if (!bound(e) && beside.some(bound)) return false;
    return !summary(e) || !beside.some((other) => !summary(other));
  });
}

function describeOne(e: ValidatorErrorItem, req: Request): string {
  const segments = (e.path ?? '').split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const field = fieldName(segments);
  const value = valueAt(req, segments);
  const code = keyword(e);
  const max = code === 'maxLength' ? Number(/more than (\d+) character/.exec(e.message ?? '')?.[1]) : NaN;
  const kind = code === 'pattern' ? kindOfPattern(/must match pattern "(.*)"$/s.exec(e.message ?? '')?.[1] ?? '') : null;
  const problem = (text: string): string | null => {
    if (!Number.isNaN(max) && characters(text) > max) return `is ${grouped(characters(text))} characters; at most ${grouped(max)}`;
    const found = kind ? firstRefused(text, kind) : null;
    if (found && kind) return `holds ${describeRefused(found)}; ${ALLOWED[kind]}`;
    return null;
  };
  if (typeof value === 'string') {
    const p = problem(value);
    if (p) return `${field} ${p}`;
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    // A key of a record (PATCH /settings): Ajv reports it at the object's own path.
    for (const key of Object.keys(value)) {
      const p = problem(key);
      if (p) return `${field} key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)} ${p}`;
    }
  }
  return `${field} ${e.message ?? 'is not valid'}`.trim();
}

/** body.tools[0], query.since, params.slug. */
function fieldName(segments: readonly string[]): string {
  return segments.reduce((name, s, i) => (i === 0 ? s : /^\d+$/.test(s) ? `${name}[${s}]` : `${name}.${s}`), '');
}

function valueAt(req: Request, segments: readonly string[]): unknown {
  let value: unknown = { body: req.body, query: req.query, params: req.params, headers: req.headers };
  for (const s of segments) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, s)) return undefined;
    value = (value as Record<string, unknown>)[s];
  }
  return value;
}
