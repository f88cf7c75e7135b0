import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { MAX_ROW_ID } from './row-id';

/**
 * Paging by id for the long lists (accounts, teams, API keys, sources, credentials, projects,
 * solutions): `limit` (1 to 1000, default 100) and `after` (the last id of the previous page), the
 * next page named by a `Link: <...>; rel="next"` as GET /issues does. Rows are never reordered, so a page boundary holds.
 */
export const DEFAULT_PAGE_SIZE = 100;
export const IdPageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `Rows per page (default ${DEFAULT_PAGE_SIZE}); Link rel="next" names the next page` })),
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID, description: 'The last id of the previous page' })),
});

export interface IdPage { limit: number; after: number }

export function idPageOf(query: Record<string, unknown>): IdPage {
  return { limit: Number(query.limit ?? DEFAULT_PAGE_SIZE), after: Number(query.after ?? 0) };
}

/** Answers the page's rows, with a Link to the next page when there is one (`rows` holds at most limit + 1). */
export function answerPage<T extends { id: number }>(res: Response, path: string, page: IdPage, rows: T[]): T[] {
  if (rows.length > page.limit) res.setHeader('Link', `</api/v1${path}?limit=${page.limit}&after=${rows[page.limit - 1].id}>; rel="next"`);
  return rows.slice(0, page.limit);
}
